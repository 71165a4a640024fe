-- Schema version 6 -> 7: prepare time. measurements.prepare_ms is the device
-- time of a config's prepare stages (a space's `prepare: true` launches, such
-- as Winograd's filter transform: they depend on the weights alone and run
-- once per weight buffer, in the exported library's beast_conv2d_prepare), so
-- they are not part of median_ms; NULL for a config without them. The history
-- of superseded outcomes keeps it too.
ALTER TABLE measurements ADD COLUMN prepare_ms REAL;

ALTER TABLE superseded_measurements ADD COLUMN prepare_ms REAL;

PRAGMA user_version = 7;

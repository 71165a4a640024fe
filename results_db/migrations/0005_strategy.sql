-- Schema version 4 -> 5: which search strategy chose each measured config
-- ('model', 'random', 'exhaustive'; 'default' for the template's default
-- config, measured first whatever the strategy; '' for a measurement made
-- before version 5 or imported), so queries and reports can tell the
-- trajectories of strategies apart; and the searches table, the state of a
-- search its measurements do not hold. The text of the CREATE is the one in
-- schema.sql.
ALTER TABLE measurements ADD COLUMN strategy TEXT NOT NULL DEFAULT '';

-- Version 5: the state of a pair's search that its measurements do not hold:
-- the measurement id below which its transfer set reads (the trials of the
-- template on other problems and devices), fixed when the search starts, so
-- a resumed search, or a device sharing it, learns from the same trials.
CREATE TABLE searches (
  device_id INTEGER NOT NULL REFERENCES devices (id),
  problem_id INTEGER NOT NULL REFERENCES problems (id),
  template_id INTEGER NOT NULL REFERENCES templates (id),
  transfer_before_id INTEGER NOT NULL,
  PRIMARY KEY (device_id, problem_id, template_id)
);

PRAGMA user_version = 5;

-- Schema version 7 -> 8: a search's lead. searches.lead is how many proposed
-- configs the pair's search keeps ahead of its measurements, the largest any
-- of its runs had: the strategy's proposals depend on it, and a run under
-- mpirun sizes it to its ranks' compile slots, so a resume on fewer ranks or
-- cores keeps the larger one to continue the same trajectory. NULL for a
-- search begun before (the next run that resumes it sets it).
ALTER TABLE searches ADD COLUMN lead INTEGER;

PRAGMA user_version = 8;

-- The unsettled queue (migration 033) kept two indexes besides its key: by merchant and time, and by
-- time. Every payment wrote all three b-trees (bench:pages: 4.5 of the 190 pages a commit of 100
-- payments writes went to the second index). "Who has something to settle before the cutoff" reads
-- the merchant index whole instead: the queue holds only what is unsettled, so that read still costs
-- what is unsettled, not the gateway's age.
DROP INDEX unsettled_entries_by_time;

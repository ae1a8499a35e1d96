-- Once: events suspected of having crashed their process, kept apart from the attempts.

-- A delivery that comes back without the consumer knowing why (its process died, or another
-- process's did) may be a poison that kills the process. Such deliveries run again in groups
-- whose members' level is raised here, in one commit, before the group runs; a group of
-- batchSize >> level that crashes again comes back one level higher, so a poison is found by
-- bisection in log2(batchSize) rounds. A group that commits deletes its members' rows. Only a
-- crash while an event runs alone counts as an attempt (in once_attempt): innocents that shared
-- a batch with a poison are never charged for it.
CREATE TABLE once_suspect (
    consumer_id VARCHAR(200) NOT NULL,
    event_id    VARCHAR(200) NOT NULL,
    level       INT          NOT NULL,   -- groups it ran in without committing, in a row
    raised_at   DATETIME(6)  NOT NULL,
    PRIMARY KEY (consumer_id, event_id),
    INDEX once_suspect_raised (raised_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

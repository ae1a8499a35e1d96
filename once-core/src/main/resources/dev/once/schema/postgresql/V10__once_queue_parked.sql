-- Once: the rows waiting behind a parked key leave the claim's range of the ready index.

-- The events waiting behind a parked key are the oldest rows of their group's queue, so a claim
-- that read the group's rows in id order met every one of them first, on every claim (1 000 rows
-- behind one parked key: 537 buffer hits per claim). A row is marked parked while its key is: by
-- the acknowledgement that parks the key (its rows enqueued in key order), and on enqueue while
-- the key is parked; a replay or discard that releases the key clears the mark in the same
-- transaction. The ready index holds the unparked rows only, so claims no longer see those rows
-- (partial: its two columns as before, so the planner weighs it as before; a query of a whole
-- group's rows, parked ones too, is an admin's or a bench's). Only parking and releasing change the
-- column: a claim's update stays a HOT update. Order is by id; the mark moves nothing.
ALTER TABLE once_queue ADD COLUMN parked boolean NOT NULL DEFAULT false;
DROP INDEX once_queue_ready;
CREATE INDEX once_queue_ready ON once_queue (consumer_group, id) WHERE NOT parked;
UPDATE once_queue q SET parked = true
 WHERE q.in_key_order AND q.event_key IS NOT NULL
   AND EXISTS (SELECT 1 FROM once_parked_key p
                WHERE p.consumer_group = q.consumer_group AND p.destination = q.destination
                  AND p.event_key = q.event_key);

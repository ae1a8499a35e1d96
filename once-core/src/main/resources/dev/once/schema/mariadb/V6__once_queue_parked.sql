-- Once: the rows waiting behind a parked key leave the claim's range of the ready index (see the
-- PostgreSQL schema's V10): marked parked by the acknowledgement that parks their key, cleared by
-- the replay or discard that releases it; claims read (consumer_group, parked = false) in id order.
ALTER TABLE once_queue ADD COLUMN parked BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE once_queue DROP INDEX once_queue_ready, ADD INDEX once_queue_ready (consumer_group, parked, id);
UPDATE once_queue q SET parked = TRUE
 WHERE q.in_key_order AND q.event_key IS NOT NULL
   AND EXISTS (SELECT 1 FROM once_parked_key p
                WHERE p.consumer_group = q.consumer_group AND p.destination = q.destination
                  AND p.event_key = q.event_key);

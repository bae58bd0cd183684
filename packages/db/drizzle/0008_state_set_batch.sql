-- Group commit for overwrites of live keys (issue 24). Writes to one keyspace commit one at a
-- time (0005: the change-feed head row is locked from the change record to the commit), so
-- concurrent PUTs of one keyspace each waited for the previous one's WAL flush.
-- orrery_state_set_batch overwrites several live keys of one keyspace in one transaction: one
-- head-row hold and one WAL flush for all of them. Durability is unchanged: statesvc answers
-- each write only after the batch's commit.
--
-- Only plain overwrites of live keys (no CAS, no namespace byte budget, no fence, no
-- idempotency claim): they change no count, so no `#meta` lock, exactly 0004/0005's fast path.
-- Lock order: first every entry row of the batch, in key order (FOR UPDATE; the index scan and
-- the sort give key order, and rows are locked in the order they are returned), then the head
-- row (orrery_state_record_change) -- the order every other writer uses (`#namespace` -> `#meta`
-- -> entry -> head), and batches lock entries in one global order, so no deadlock.
-- A key that is not live (missing, expired) is not written and answers 'retry': the caller runs
-- that write alone through orrery_state_set (creates take `#meta` first, so they cannot join).
-- Keys must be distinct (statesvc's batch holds one write per key); results come in array order
-- and the changes are numbered in array order.
CREATE OR REPLACE FUNCTION orrery_state_set_batch(
  p_namespace text, p_keyspace text, p_keys text[], p_values text[], p_bytes integer[], p_expires_at bigint[], p_now bigint)
RETURNS TABLE (result text, new_version bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_live text[];
  v_i integer;
BEGIN
  SELECT coalesce(array_agg(l.key), '{}') INTO v_live FROM (
    SELECT e.key FROM state_entries e
      WHERE e.namespace = p_namespace AND e.keyspace = p_keyspace AND e.key = ANY (p_keys)
        AND (e.expires_at IS NULL OR e.expires_at > p_now)
      ORDER BY e.key FOR UPDATE) l;
  FOR v_i IN 1 .. coalesce(array_length(p_keys, 1), 0) LOOP
    IF p_keys[v_i] = ANY (v_live) THEN
      UPDATE state_entries e SET value = p_values[v_i], bytes = p_bytes[v_i], version = nextval('state_version_seq'), expires_at = p_expires_at[v_i]
        WHERE e.namespace = p_namespace AND e.keyspace = p_keyspace AND e.key = p_keys[v_i]
        RETURNING e.version INTO new_version;
      PERFORM orrery_state_record_change(p_namespace, p_keyspace, p_keys[v_i], 'set', new_version, p_values[v_i], p_now);
      result := 'ok';
    ELSE
      result := 'retry';
      new_version := NULL;
    END IF;
    RETURN NEXT;
  END LOOP;
END
$$;

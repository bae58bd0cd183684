-- A keyspace deletion (`onDelete: delete`) leaves no copy of the keyspace's values behind:
--
-- * its recorded reads that hold a value are removed (docs/state.md "Recorded reads"): a record
--   keeps a copy of the value it answered until its retention ends. Write outcomes (status and
--   version only, no user data) and reads that found nothing stay until their retention, so a
--   write retried after the deletion still replays its outcome rather than applying twice. A
--   replay of a removed read finds no record and reads the key live.
-- * the change feed's history before the deletion, whose `set` records hold values, is pruned:
--   the window's low mark moves to the last change before the deletion's own records, so a reader
--   behind it is told its position expired (it starts over from the now empty keyspace), and a
--   reader that was caught up sees the deletion's `delete`/`expire` records. The numbering goes on.
--   Also when the keyspace has no #meta row left (its keys were deleted one by one).

-- Prunes the keyspace's change history up to its head minus the `p_keep` newest records (the
-- deletion's own). The head row is read after the deletion recorded its changes (holding the
-- head row's lock when it recorded any), so no change of a concurrent writer falls between.
CREATE OR REPLACE FUNCTION orrery_state_prune_history(p_namespace text, p_keyspace text, p_keep integer) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_head bigint;
  v_low bigint;
  v_target bigint;
BEGIN
  SELECT h.seq, h.low INTO v_head, v_low FROM state_change_heads h WHERE h.namespace = p_namespace AND h.keyspace = p_keyspace;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  v_target := v_head - p_keep;
  IF v_target <= v_low THEN
    RETURN;
  END IF;
  DELETE FROM state_changes c WHERE c.namespace = p_namespace AND c.keyspace = p_keyspace AND c.seq <= v_target;
  UPDATE state_change_heads h SET low = greatest(h.low, v_target) WHERE h.namespace = p_namespace AND h.keyspace = p_keyspace;
END
$$;
--> statement-breakpoint
-- Keyspace deletion as in 0007, with the recorded reads removed first, before the #meta lock: every idempotent request
-- claims its idempotency row before it takes #meta (0006, 0009), so this order makes no cycle.
-- Keeps 0007's fence deletion and 0005's orrery_state_record_changes call (the change feed).
CREATE OR REPLACE FUNCTION orrery_state_delete_keyspace(p_namespace text, p_keyspace text, p_now bigint, OUT deleted integer)
LANGUAGE plpgsql AS $$
DECLARE
  v_keys text[];
  v_ops text[];
  v_versions bigint[];
BEGIN
  DELETE FROM state_idempotency i WHERE i.namespace = p_namespace AND i.keyspace = p_keyspace AND i.value IS NOT NULL;
  DELETE FROM state_fences f WHERE f.namespace = p_namespace AND f.keyspace = p_keyspace;
  PERFORM 1 FROM state_meta m WHERE m.namespace = p_namespace AND m.keyspace = p_keyspace FOR UPDATE;
  IF NOT FOUND THEN
    deleted := 0;
    PERFORM orrery_state_prune_history(p_namespace, p_keyspace, 0);
    RETURN;
  END IF;
  WITH gone AS (
    DELETE FROM state_entries e WHERE e.namespace = p_namespace AND e.keyspace = p_keyspace RETURNING e.key, e.version, e.expires_at)
  SELECT count(*) FILTER (WHERE g.expires_at IS NULL OR g.expires_at > p_now),
         array_agg(g.key ORDER BY g.key),
         array_agg(CASE WHEN g.expires_at IS NULL OR g.expires_at > p_now THEN 'delete' ELSE 'expire' END ORDER BY g.key),
         array_agg(g.version ORDER BY g.key)
    INTO deleted, v_keys, v_ops, v_versions FROM gone g;
  DELETE FROM state_meta m WHERE m.namespace = p_namespace AND m.keyspace = p_keyspace;
  PERFORM orrery_state_record_changes(p_namespace, p_keyspace, v_keys, v_ops, v_versions, p_now);
  PERFORM orrery_state_prune_history(p_namespace, p_keyspace, coalesce(array_length(v_keys, 1), 0));
END
$$;

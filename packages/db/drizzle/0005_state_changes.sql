-- The keyspace change feed (docs/state.md "Change feed"; issue 22 part 1).
--
-- Every write that changes state_entries records, in its own transaction, one row per key it
-- touched in state_changes, numbered by the keyspace's counter in state_change_heads:
--   set     a key was written (PUT, CAS): version = the new version, value = the new value
--   delete  a live key was deleted: version = the version removed
--   expire  an expired row was removed: by the sweeper, or earlier by a write that meets it
--           (a set or delete of that key, a create purging expired keys under maxKeys, a
--           keyspace deletion); version = the version removed. Reads never remove rows.
--
-- Why a reader never sees seq N+1 before N has committed (gap-free in commit order):
--   * A number is handed out only by `UPDATE state_change_heads SET seq = seq + 1` (or the
--     upsert that creates the row), which takes the head row's lock; the lock is held until the
--     writing transaction ends.
--   * So the transaction that gets N+1 waited for the one holding N to end. Postgres makes a
--     transaction visible (ProcArrayEndTransaction, after the commit record is flushed) before
--     it releases its locks, so when N+1 is handed out, N is already visible to every new
--     snapshot -- or it rolled back, and then the counter is back at N-1 and N is handed out
--     again: no number is ever lost.
--   * A reader runs one statement (one snapshot) that reads the head row and the changes
--     together; any snapshot that sees N+1 committed was taken after N became visible. The set
--     of numbers a snapshot sees is therefore always 1..head, with no hole.
-- Pruning (orrery_state_prune_changes) deletes a prefix and raises `low` in one transaction,
-- so a snapshot sees either the rows or the higher low, never a hole.
--
-- Cost: every write to a keyspace now takes its head row lock, from the change record to the
-- commit (the last step of each function, after every entry and #meta lock, so lock order is
-- `#namespace` -> keyspace `#meta` -> entry -> head and the head lock waits for nothing but
-- commits). Writes to one keyspace therefore commit one at a time (in-place overwrites of
-- different keys no longer group-commit); other keyspaces are unaffected. Measured by
-- `npm run bench -- statesvc-feed` (bench/statesvc/change-feed-write-cost.ts; docs/performance.md
-- "change feed"). A number taken without waiting for the previous holder's commit could be
-- rolled back behind a later one and leave a hole forever, so the wait is the price of gap-free.
--
-- Wake-ups: readers are woken by NOTIFY on channel orrery_state_changes (payload
-- `namespace/keyspace`) sent by the writing statesvc *after* the write, in a transaction of
-- its own (orrery_state_changes_wake): a NOTIFY inside the write would take Postgres' global
-- notify lock through every commit and serialise writes of all keyspaces. The table is the
-- truth; a lost wake-up only delays a reader until its next poll.
--
-- A later migration that replaces orrery_state_set, orrery_state_delete or
-- orrery_state_delete_keyspace must keep their orrery_state_record_change(s) calls (the
-- change-feed conformance tests fail otherwise).

CREATE TABLE "state_change_heads" (
	"namespace" text NOT NULL,
	"keyspace" text NOT NULL,
	"seq" bigint NOT NULL,
	"low" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "state_change_heads_namespace_keyspace_pk" PRIMARY KEY("namespace","keyspace")
);
--> statement-breakpoint
CREATE TABLE "state_changes" (
	"namespace" text NOT NULL,
	"keyspace" text NOT NULL,
	"seq" bigint NOT NULL,
	"key" text COLLATE "C" NOT NULL,
	"op" text NOT NULL,
	"version" bigint NOT NULL,
	"value" text,
	"at" bigint NOT NULL,
	CONSTRAINT "state_changes_namespace_keyspace_seq_pk" PRIMARY KEY("namespace","keyspace","seq")
);

--> statement-breakpoint
-- Records one change: takes the next number of the keyspace (locking its head row until the
-- transaction ends) and stores the change. Returns the number.
CREATE OR REPLACE FUNCTION orrery_state_record_change(
  p_namespace text, p_keyspace text, p_key text, p_op text, p_version bigint, p_value text, p_at bigint) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  v_seq bigint;
BEGIN
  -- A plain UPDATE first: queued writers wait on the row lock and then re-read the row
  -- (EvalPlanQual); the upsert's speculative insertion would restart each time instead.
  UPDATE state_change_heads h SET seq = h.seq + 1 WHERE h.namespace = p_namespace AND h.keyspace = p_keyspace
    RETURNING h.seq INTO v_seq;
  IF NOT FOUND THEN
    INSERT INTO state_change_heads AS h (namespace, keyspace, seq) VALUES (p_namespace, p_keyspace, 1)
      ON CONFLICT (namespace, keyspace) DO UPDATE SET seq = h.seq + 1
      RETURNING h.seq INTO v_seq;
  END IF;
  INSERT INTO state_changes (namespace, keyspace, seq, key, op, version, value, at)
    VALUES (p_namespace, p_keyspace, v_seq, p_key, p_op, p_version, p_value, p_at);
  RETURN v_seq;
END
$$;
--> statement-breakpoint
-- Records several value-less changes (delete / expire) at once, numbered in array order.
CREATE OR REPLACE FUNCTION orrery_state_record_changes(
  p_namespace text, p_keyspace text, p_keys text[], p_ops text[], p_versions bigint[], p_at bigint) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_n integer := coalesce(array_length(p_keys, 1), 0);
  v_end bigint;
BEGIN
  IF v_n = 0 THEN
    RETURN;
  END IF;
  UPDATE state_change_heads h SET seq = h.seq + v_n WHERE h.namespace = p_namespace AND h.keyspace = p_keyspace
    RETURNING h.seq INTO v_end;
  IF NOT FOUND THEN
    INSERT INTO state_change_heads AS h (namespace, keyspace, seq) VALUES (p_namespace, p_keyspace, v_n)
      ON CONFLICT (namespace, keyspace) DO UPDATE SET seq = h.seq + v_n
      RETURNING h.seq INTO v_end;
  END IF;
  INSERT INTO state_changes (namespace, keyspace, seq, key, op, version, value, at)
    SELECT p_namespace, p_keyspace, v_end - v_n + c.i, c.k, c.o, c.v, NULL, p_at
      FROM unnest(p_keys, p_ops, p_versions) WITH ORDINALITY AS c(k, o, v, i);
END
$$;
--> statement-breakpoint
-- setCounted as in 0004 (same contract, same lock order, same fast path), recording its changes:
-- `set`, preceded by `expire` when it replaces an expired row, and `expire` for every row the
-- maxKeys purge removes (in key order). Every record call comes after the last entry lock.
CREATE OR REPLACE FUNCTION orrery_state_set(
  p_namespace text, p_keyspace text, p_key text, p_value text, p_bytes integer, p_expires_at bigint,
  p_if_version bigint, p_max_keys bigint, p_namespace_budget bigint, p_now bigint,
  OUT result text, OUT new_version bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_count integer;
  v_old record;
  v_exists boolean;
  v_live boolean;
  v_purged_keys text[];
  v_purged_versions bigint[];
  v_purged integer := 0;
  v_used bigint;
BEGIN
  -- Overwrite of a live key (see 0004 for why it runs in a subtransaction).
  IF (p_if_version IS NULL OR p_if_version > 0) AND p_namespace_budget <= 0 THEN
    BEGIN
      UPDATE state_entries e SET value = p_value, bytes = p_bytes, version = nextval('state_version_seq'), expires_at = p_expires_at
        WHERE e.namespace = p_namespace AND e.keyspace = p_keyspace AND e.key = p_key
          AND (e.expires_at IS NULL OR e.expires_at > p_now)
          AND (p_if_version IS NULL OR e.version = p_if_version)
        RETURNING e.version INTO new_version;
      IF FOUND THEN
        PERFORM orrery_state_record_change(p_namespace, p_keyspace, p_key, 'set', new_version, p_value, p_now);
        result := 'ok';
        RETURN;
      END IF;
      RAISE EXCEPTION USING ERRCODE = 'OR001';
    EXCEPTION WHEN SQLSTATE 'OR001' THEN
      NULL;
    END;
    IF p_if_version IS NOT NULL THEN
      PERFORM 1 FROM state_entries e
        WHERE e.namespace = p_namespace AND e.keyspace = p_keyspace AND e.key = p_key AND (e.expires_at IS NULL OR e.expires_at > p_now);
      IF FOUND THEN
        result := 'version_conflict';
        RETURN;
      END IF;
    END IF;
  END IF;

  IF p_namespace_budget > 0 THEN
    PERFORM orrery_state_lock_meta(p_namespace, '#namespace');
  END IF;
  v_count := orrery_state_lock_meta(p_namespace, p_keyspace);
  SELECT e.version, e.bytes, e.expires_at INTO v_old FROM state_entries e
    WHERE e.namespace = p_namespace AND e.keyspace = p_keyspace AND e.key = p_key FOR UPDATE;
  v_exists := FOUND;
  v_live := v_exists AND (v_old.expires_at IS NULL OR v_old.expires_at > p_now);
  IF p_if_version IS NOT NULL THEN
    IF (p_if_version = 0 AND v_live) OR (p_if_version <> 0 AND (NOT v_live OR v_old.version <> p_if_version)) THEN
      result := 'version_conflict';
      RETURN;
    END IF;
  END IF;
  IF NOT v_exists AND p_max_keys IS NOT NULL AND v_count + 1 > p_max_keys THEN
    -- Expired keys stop counting at once: purge them under the lock, then re-check.
    WITH purged AS (
      DELETE FROM state_entries e WHERE e.namespace = p_namespace AND e.keyspace = p_keyspace
        AND e.expires_at IS NOT NULL AND e.expires_at <= p_now RETURNING e.key, e.version)
    SELECT count(*), array_agg(p.key ORDER BY p.key), array_agg(p.version ORDER BY p.key)
      INTO v_purged, v_purged_keys, v_purged_versions FROM purged p;
    IF v_purged > 0 THEN
      v_count := v_count - v_purged;
      UPDATE state_meta m SET keys = v_count WHERE m.namespace = p_namespace AND m.keyspace = p_keyspace;
    END IF;
    IF v_count + 1 > p_max_keys THEN
      -- Refused, but the purge stands: record it.
      IF v_purged > 0 THEN
        PERFORM orrery_state_record_changes(p_namespace, p_keyspace, v_purged_keys, array_fill('expire'::text, ARRAY[v_purged]), v_purged_versions, p_now);
      END IF;
      result := 'quota_keys';
      RETURN;
    END IF;
  END IF;
  IF p_namespace_budget > 0 THEN
    SELECT coalesce(sum(e.bytes), 0) INTO v_used FROM state_entries e
      WHERE e.namespace = p_namespace AND (e.expires_at IS NULL OR e.expires_at > p_now)
        AND NOT (e.keyspace = p_keyspace AND e.key = p_key);
    IF v_used + p_bytes > p_namespace_budget THEN
      IF v_purged > 0 THEN
        PERFORM orrery_state_record_changes(p_namespace, p_keyspace, v_purged_keys, array_fill('expire'::text, ARRAY[v_purged]), v_purged_versions, p_now);
      END IF;
      result := 'quota_namespace_bytes';
      RETURN;
    END IF;
  END IF;
  INSERT INTO state_entries AS e (namespace, keyspace, key, value, bytes, version, expires_at)
    VALUES (p_namespace, p_keyspace, p_key, p_value, p_bytes, nextval('state_version_seq'), p_expires_at)
    ON CONFLICT (namespace, keyspace, key) DO UPDATE SET value = excluded.value, bytes = excluded.bytes,
      version = excluded.version, expires_at = excluded.expires_at
    RETURNING e.version INTO new_version;
  IF NOT v_exists THEN
    UPDATE state_meta m SET keys = v_count + 1 WHERE m.namespace = p_namespace AND m.keyspace = p_keyspace;
  END IF;
  IF v_purged > 0 THEN
    PERFORM orrery_state_record_changes(p_namespace, p_keyspace, v_purged_keys, array_fill('expire'::text, ARRAY[v_purged]), v_purged_versions, p_now);
  END IF;
  IF v_exists AND NOT v_live THEN
    PERFORM orrery_state_record_change(p_namespace, p_keyspace, p_key, 'expire', v_old.version, NULL, p_now);
  END IF;
  PERFORM orrery_state_record_change(p_namespace, p_keyspace, p_key, 'set', new_version, p_value, p_now);
  result := 'ok';
END
$$;
--> statement-breakpoint
-- delete as in 0003, recording `delete` (a live key) or `expire` (an expired row removed).
CREATE OR REPLACE FUNCTION orrery_state_delete(
  p_namespace text, p_keyspace text, p_key text, p_if_version bigint, p_now bigint, OUT result text)
LANGUAGE plpgsql AS $$
DECLARE
  v_count integer;
  v_row record;
  v_live boolean;
BEGIN
  SELECT m.keys INTO v_count FROM state_meta m WHERE m.namespace = p_namespace AND m.keyspace = p_keyspace FOR UPDATE;
  IF NOT FOUND THEN
    result := 'missing';
    RETURN;
  END IF;
  SELECT e.version, e.expires_at INTO v_row FROM state_entries e
    WHERE e.namespace = p_namespace AND e.keyspace = p_keyspace AND e.key = p_key FOR UPDATE;
  IF NOT FOUND THEN
    result := 'missing';
    RETURN;
  END IF;
  v_live := v_row.expires_at IS NULL OR v_row.expires_at > p_now;
  IF v_live AND p_if_version IS NOT NULL AND v_row.version <> p_if_version THEN
    result := 'version_conflict';
    RETURN;
  END IF;
  DELETE FROM state_entries e WHERE e.namespace = p_namespace AND e.keyspace = p_keyspace AND e.key = p_key;
  UPDATE state_meta m SET keys = v_count - 1 WHERE m.namespace = p_namespace AND m.keyspace = p_keyspace;
  PERFORM orrery_state_record_change(p_namespace, p_keyspace, p_key, CASE WHEN v_live THEN 'delete' ELSE 'expire' END, v_row.version, NULL, p_now);
  result := CASE WHEN v_live THEN 'deleted' ELSE 'missing' END;
END
$$;
--> statement-breakpoint
-- Keyspace deletion as in 0003, recording `delete` for every live key and `expire` for every
-- expired row, in key order. The head row stays: numbers continue if the keyspace is used again.
CREATE OR REPLACE FUNCTION orrery_state_delete_keyspace(p_namespace text, p_keyspace text, p_now bigint, OUT deleted integer)
LANGUAGE plpgsql AS $$
DECLARE
  v_keys text[];
  v_ops text[];
  v_versions bigint[];
BEGIN
  PERFORM 1 FROM state_meta m WHERE m.namespace = p_namespace AND m.keyspace = p_keyspace FOR UPDATE;
  IF NOT FOUND THEN
    deleted := 0;
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
END
$$;
--> statement-breakpoint
-- The sweeper, one keyspace per statement: removes the expired rows under the #meta lock,
-- corrects the count and records an `expire` for each (in key order). Returns how many.
CREATE OR REPLACE FUNCTION orrery_state_sweep(p_namespace text, p_keyspace text, p_now bigint) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_count integer;
  v_n integer;
  v_keys text[];
  v_versions bigint[];
BEGIN
  v_count := orrery_state_lock_meta(p_namespace, p_keyspace);
  WITH purged AS (
    DELETE FROM state_entries e WHERE e.namespace = p_namespace AND e.keyspace = p_keyspace
      AND e.expires_at IS NOT NULL AND e.expires_at <= p_now RETURNING e.key, e.version)
  SELECT count(*), array_agg(p.key ORDER BY p.key), array_agg(p.version ORDER BY p.key)
    INTO v_n, v_keys, v_versions FROM purged p;
  IF v_n > 0 THEN
    UPDATE state_meta m SET keys = v_count - v_n WHERE m.namespace = p_namespace AND m.keyspace = p_keyspace;
    PERFORM orrery_state_record_changes(p_namespace, p_keyspace, v_keys, array_fill('expire'::text, ARRAY[v_n]), v_versions, p_now);
  END IF;
  RETURN v_n;
END
$$;
--> statement-breakpoint
-- Retention, one keyspace per statement: prunes every change up to the higher of
-- `head - p_keep` (p_keep 0 = no count bound) and the newest change recorded before p_cutoff
-- (NULL = no age bound), and raises `low` to it in the same transaction. The rows go first;
-- the head row is locked only for the final update, so writers wait for the commit only.
-- Returns how many changes were pruned.
CREATE OR REPLACE FUNCTION orrery_state_prune_changes(p_namespace text, p_keyspace text, p_keep bigint, p_cutoff bigint) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_head bigint;
  v_low bigint;
  v_target bigint := 0;
  v_aged bigint;
  v_n integer;
BEGIN
  SELECT h.seq, h.low INTO v_head, v_low FROM state_change_heads h WHERE h.namespace = p_namespace AND h.keyspace = p_keyspace;
  IF NOT FOUND THEN
    RETURN 0;
  END IF;
  IF p_keep > 0 THEN
    v_target := v_head - p_keep;
  END IF;
  IF p_cutoff IS NOT NULL THEN
    SELECT max(c.seq) INTO v_aged FROM state_changes c
      WHERE c.namespace = p_namespace AND c.keyspace = p_keyspace AND c.seq > v_low AND c.seq <= v_head AND c.at < p_cutoff;
    v_target := greatest(v_target, coalesce(v_aged, 0));
  END IF;
  IF v_target <= v_low THEN
    RETURN 0;
  END IF;
  DELETE FROM state_changes c WHERE c.namespace = p_namespace AND c.keyspace = p_keyspace AND c.seq <= v_target;
  GET DIAGNOSTICS v_n = ROW_COUNT;
  UPDATE state_change_heads h SET low = greatest(h.low, v_target) WHERE h.namespace = p_namespace AND h.keyspace = p_keyspace;
  RETURN v_n;
END
$$;
--> statement-breakpoint
-- The wake-up after a write, in a transaction of its own. Nothing depends on it surviving a
-- crash, so its commit does not wait for a WAL flush (SET LOCAL lasts until the commit).
CREATE OR REPLACE FUNCTION orrery_state_changes_wake(p_payload text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  PERFORM pg_notify('orrery_state_changes', p_payload);
END
$$;

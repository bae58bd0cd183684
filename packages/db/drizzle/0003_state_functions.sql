-- Statestore writes as single statements (RFC-0023 setCounted). Each function runs inside the
-- one implicit transaction of the statement that calls it, so the `<keyspace>#meta` row lock
-- (FOR UPDATE), the budget check and the write commit or roll back together, exactly as the
-- former multi-statement transaction did, but in one round trip and with the lock held only
-- for the function's own execution instead of across six client round trips. plpgsql runs
-- each statement on a fresh READ COMMITTED snapshot, so what is read after taking a lock is
-- what the lock holder committed.
--
-- Lock order (never deadlocks): `#namespace` meta row (only with a byte budget) → keyspace
-- `#meta` row → entry row.

-- Locks the meta row of (namespace, keyspace), creating it with 0 keys if needed; returns its
-- count. Loops because a keyspace deletion may remove the row between insert and lock.
CREATE OR REPLACE FUNCTION orrery_state_lock_meta(p_namespace text, p_keyspace text) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_keys integer;
BEGIN
  LOOP
    SELECT m.keys INTO v_keys FROM state_meta m WHERE m.namespace = p_namespace AND m.keyspace = p_keyspace FOR UPDATE;
    IF FOUND THEN
      RETURN v_keys;
    END IF;
    INSERT INTO state_meta (namespace, keyspace, keys) VALUES (p_namespace, p_keyspace, 0) ON CONFLICT DO NOTHING;
  END LOOP;
END
$$;
--> statement-breakpoint
-- setCounted. p_if_version: NULL = unconditional, 0 = create-only, > 0 = compare-and-swap.
-- p_max_keys NULL = no key limit; p_namespace_budget 0 = no byte budget. Times are epoch ms.
-- result: 'ok' (new_version set), 'version_conflict', 'quota_keys', 'quota_namespace_bytes'.
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
  v_purged integer;
  v_used bigint;
BEGIN
  -- Overwrite of a live key: the count does not change, the entry's row lock is enough, so
  -- overwrites of different keys never queue on the #meta row.
  IF (p_if_version IS NULL OR p_if_version > 0) AND p_namespace_budget <= 0 THEN
    UPDATE state_entries e SET value = p_value, bytes = p_bytes, version = nextval('state_version_seq'), expires_at = p_expires_at
      WHERE e.namespace = p_namespace AND e.keyspace = p_keyspace AND e.key = p_key
        AND (e.expires_at IS NULL OR e.expires_at > p_now)
        AND (p_if_version IS NULL OR e.version = p_if_version)
      RETURNING e.version INTO new_version;
    IF FOUND THEN
      result := 'ok';
      RETURN;
    END IF;
    -- A live key at another version is a conflict without taking the #meta lock.
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
        AND e.expires_at IS NOT NULL AND e.expires_at <= p_now RETURNING 1)
    SELECT count(*) INTO v_purged FROM purged;
    IF v_purged > 0 THEN
      v_count := v_count - v_purged;
      UPDATE state_meta m SET keys = v_count WHERE m.namespace = p_namespace AND m.keyspace = p_keyspace;
    END IF;
    IF v_count + 1 > p_max_keys THEN
      result := 'quota_keys';
      RETURN;
    END IF;
  END IF;
  IF p_namespace_budget > 0 THEN
    SELECT coalesce(sum(e.bytes), 0) INTO v_used FROM state_entries e
      WHERE e.namespace = p_namespace AND (e.expires_at IS NULL OR e.expires_at > p_now)
        AND NOT (e.keyspace = p_keyspace AND e.key = p_key);
    IF v_used + p_bytes > p_namespace_budget THEN
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
  result := 'ok';
END
$$;
--> statement-breakpoint
-- delete. result: 'deleted' (a live key was removed), 'missing' (no key, or only an expired
-- row, which is removed too), 'version_conflict'.
CREATE OR REPLACE FUNCTION orrery_state_delete(
  p_namespace text, p_keyspace text, p_key text, p_if_version bigint, p_now bigint, OUT result text)
LANGUAGE plpgsql AS $$
DECLARE
  v_count integer;
  v_row record;
  v_live boolean;
BEGIN
  SELECT m.keys INTO v_count FROM state_meta m WHERE m.namespace = p_namespace AND m.keyspace = p_keyspace FOR UPDATE;
  -- Rows are only ever inserted together with their #meta row: no meta, no rows.
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
  result := CASE WHEN v_live THEN 'deleted' ELSE 'missing' END;
END
$$;
--> statement-breakpoint
-- Removes every entry and the #meta row of one keyspace; returns how many live keys it held.
-- The #meta lock is taken first, so no writer is half-way through adding a row meanwhile.
CREATE OR REPLACE FUNCTION orrery_state_delete_keyspace(p_namespace text, p_keyspace text, p_now bigint, OUT deleted integer)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM state_meta m WHERE m.namespace = p_namespace AND m.keyspace = p_keyspace FOR UPDATE;
  IF NOT FOUND THEN
    deleted := 0;
    RETURN;
  END IF;
  WITH gone AS (
    DELETE FROM state_entries e WHERE e.namespace = p_namespace AND e.keyspace = p_keyspace RETURNING e.expires_at)
  SELECT count(*) FILTER (WHERE g.expires_at IS NULL OR g.expires_at > p_now) INTO deleted FROM gone g;
  DELETE FROM state_meta m WHERE m.namespace = p_namespace AND m.keyspace = p_keyspace;
END
$$;

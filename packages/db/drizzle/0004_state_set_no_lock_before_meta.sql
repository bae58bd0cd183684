-- orrery_state_set without a lock-order inversion (see 0003 for the function's contract).
--
-- Lock order stays: `#namespace` meta row → keyspace `#meta` row → entry row. The overwrite
-- fast path may take an entry row lock without #meta, so it must never keep one when it falls
-- through to the counting path; it now tries inside a subtransaction and rolls it back when it
-- wrote nothing. Found by the fast-check maxKeys race (quota-race.int.test.ts): Postgres
-- reported a four-process cycle, a fast-path writer holding an entry and queued on #meta.

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
  --
  -- The attempt runs in a subtransaction that is rolled back when it updates nothing. In READ
  -- COMMITTED an UPDATE that finds its row changed by a concurrent commit locks the newest
  -- version first and only then re-checks the WHERE; when the re-check fails (the row expired
  -- or moved to another version meanwhile) the row stays locked although nothing was written.
  -- Carrying that entry lock into the #meta lock below inverted the lock order (entry → #meta
  -- while every counting writer takes #meta → entry) and deadlocked under create/expire churn.
  IF (p_if_version IS NULL OR p_if_version > 0) AND p_namespace_budget <= 0 THEN
    BEGIN
      UPDATE state_entries e SET value = p_value, bytes = p_bytes, version = nextval('state_version_seq'), expires_at = p_expires_at
        WHERE e.namespace = p_namespace AND e.keyspace = p_keyspace AND e.key = p_key
          AND (e.expires_at IS NULL OR e.expires_at > p_now)
          AND (p_if_version IS NULL OR e.version = p_if_version)
        RETURNING e.version INTO new_version;
      IF FOUND THEN
        result := 'ok';
        RETURN;
      END IF;
      RAISE EXCEPTION USING ERRCODE = 'OR001';
    EXCEPTION WHEN SQLSTATE 'OR001' THEN
      -- Nothing written: the rollback releases any lock the UPDATE left behind.
      NULL;
    END;
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

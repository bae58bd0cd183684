-- Write fences tied to the sticky owner (docs/state.md "Fencing"; issue 22 part 4).
--
-- A worker that takes a key over claims it (POST /v1/fences/{key}) and gets a fence higher than
-- any issued before for that key; it sends the fence with every write of the key
-- (X-Orrery-Fence). A write with a fence lands only if that fence is the key's current one,
-- checked in the write's own transaction; a write without a fence is not checked.
--
-- Minting: orrery_state_claim_fence is one upsert whose new value is nextval('state_version_seq'),
-- evaluated after the row lock is held (ON CONFLICT DO UPDATE), so a claim waits for the
-- previous claim (and every write holding the fence) to commit, and its fence is higher than any
-- value that row ever held. The sequence is global and never goes back, so a fence is never
-- reissued -- also after the keyspace (and its fences) was deleted.
--
-- Accepted only when equal: a fence lower than the current one was superseded by a newer claim;
-- a higher one was never issued for the key (a client cannot raise a key's fence, so it cannot
-- lock the next claimant out or push the counter past 2^53). "The highest claimed or accepted"
-- is therefore always the last claimed, and an accepted fence already is the highest.
--
-- Atomic with the write: the fenced write functions take the fence row FOR SHARE before any
-- other lock of the write and hold it to their commit; a claim (an UPDATE of that row) waits for
-- them. So once a claim has returned, every write with an older fence either committed before it
-- or is refused. Writes with the same fence do not block each other on the fence row.
--
-- Lock order: idempotency row -> fence row -> `#namespace` -> keyspace `#meta` -> entry ->
-- change head. A claim locks only its fence row; keyspace deletion deletes the keyspace's fence
-- rows before it locks `#meta`. No cycle.
--
-- Idempotent replays: the idempotency claim comes first, so a retry of a write that already
-- committed gets its stored outcome whatever its fence (it writes nothing). A `fenced` refusal,
-- like a quota refusal, is not stored: the pending claim row is deleted.

CREATE TABLE "state_fences" (
	"namespace" text NOT NULL,
	"keyspace" text NOT NULL,
	"key" text COLLATE "C" NOT NULL,
	"fence" bigint NOT NULL,
	CONSTRAINT "state_fences_namespace_keyspace_key_pk" PRIMARY KEY("namespace","keyspace","key")
);

--> statement-breakpoint
-- A new fence for the key: higher than any fence the row ever held (see the header).
CREATE OR REPLACE FUNCTION orrery_state_claim_fence(p_namespace text, p_keyspace text, p_key text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  v_fence bigint;
BEGIN
  INSERT INTO state_fences AS f (namespace, keyspace, key, fence) VALUES (p_namespace, p_keyspace, p_key, nextval('state_version_seq'))
    ON CONFLICT (namespace, keyspace, key) DO UPDATE SET fence = nextval('state_version_seq')
    RETURNING f.fence INTO v_fence;
  RETURN v_fence;
END
$$;
--> statement-breakpoint
-- The fence check of a write: share-locks the key's fence row until the transaction ends.
-- NULL = accepted (p_fence is the current fence); otherwise the current fence (0 = none claimed).
CREATE OR REPLACE FUNCTION orrery_state_fence_check(p_namespace text, p_keyspace text, p_key text, p_fence bigint) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  v_current bigint;
BEGIN
  SELECT f.fence INTO v_current FROM state_fences f
    WHERE f.namespace = p_namespace AND f.keyspace = p_keyspace AND f.key = p_key FOR SHARE;
  IF NOT FOUND THEN
    RETURN 0;
  END IF;
  IF v_current = p_fence THEN
    RETURN NULL;
  END IF;
  RETURN v_current;
END
$$;
--> statement-breakpoint
-- orrery_state_set_idempotent of 0006 with a fence (p_fence NULL: not checked). result adds
-- 'fenced', with the key's current fence in current_fence. The fence is checked after the
-- idempotency claim (a replay writes nothing) and before anything else is locked.
CREATE OR REPLACE FUNCTION orrery_state_set_fenced(
  p_fence bigint, p_idem_key text, p_request_hash text, p_retention_ms bigint, p_record_bytes integer,
  p_namespace text, p_keyspace text, p_key text, p_value text, p_bytes integer, p_expires_at bigint,
  p_if_version bigint, p_max_keys bigint, p_namespace_budget bigint, p_now bigint,
  OUT result text, OUT new_version bigint, OUT status integer, OUT replayed boolean, OUT current_fence bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_claim record;
  v_budget bigint := 0;
  v_retained bigint;
  v_result text;
  v_version bigint;
  v_status integer;
BEGIN
  replayed := false;
  IF p_idem_key IS NOT NULL THEN
    SELECT * INTO v_claim FROM orrery_state_idempotency_claim(p_namespace, p_keyspace, p_idem_key, p_request_hash, p_now + p_retention_ms, p_record_bytes, p_now);
    IF v_claim.claim = 'idempotency_mismatch' THEN
      result := 'idempotency_mismatch';
      RETURN;
    ELSIF v_claim.claim = 'replay' THEN
      result := v_claim.stored_result;
      new_version := v_claim.stored_version;
      status := v_claim.stored_status;
      replayed := true;
      RETURN;
    END IF;
  END IF;
  IF p_fence IS NOT NULL THEN
    current_fence := orrery_state_fence_check(p_namespace, p_keyspace, p_key, p_fence);
    IF current_fence IS NOT NULL THEN
      IF p_idem_key IS NOT NULL THEN
        DELETE FROM state_idempotency i WHERE i.namespace = p_namespace AND i.keyspace = p_keyspace AND i.idem_key = p_idem_key;
      END IF;
      result := 'fenced';
      RETURN;
    END IF;
  END IF;
  IF p_namespace_budget > 0 THEN
    -- Under the namespace lock every budgeted writer sees the outcomes committed before it.
    -- This transaction's own claim is still `pending`: counted as p_record_bytes instead.
    PERFORM orrery_state_lock_meta(p_namespace, '#namespace');
    SELECT coalesce(sum(i.bytes), 0) INTO v_retained FROM state_idempotency i
      WHERE i.namespace = p_namespace AND i.expires_at > p_now AND i.result <> 'pending';
    v_budget := p_namespace_budget - v_retained - CASE WHEN p_idem_key IS NULL THEN 0 ELSE p_record_bytes END;
    IF v_budget <= 0 THEN
      v_result := 'quota_namespace_bytes'; -- orrery_state_set reads a budget <= 0 as "none"
    END IF;
  END IF;
  IF v_result IS NULL THEN
    SELECT s.result, s.new_version INTO v_result, v_version
      FROM orrery_state_set(p_namespace, p_keyspace, p_key, p_value, p_bytes, p_expires_at, p_if_version, p_max_keys, v_budget, p_now) s;
  END IF;
  v_status := CASE v_result WHEN 'ok' THEN 200 WHEN 'version_conflict' THEN 412 END;
  IF p_idem_key IS NOT NULL THEN
    IF v_status IS NOT NULL THEN
      UPDATE state_idempotency i SET status = v_status, result = v_result, version = v_version
        WHERE i.namespace = p_namespace AND i.keyspace = p_keyspace AND i.idem_key = p_idem_key;
    ELSE
      DELETE FROM state_idempotency i WHERE i.namespace = p_namespace AND i.keyspace = p_keyspace AND i.idem_key = p_idem_key;
    END IF;
  END IF;
  result := v_result;
  new_version := v_version;
  status := v_status;
END
$$;
--> statement-breakpoint
-- 0006's function, now one implementation with the fenced one (no fence).
CREATE OR REPLACE FUNCTION orrery_state_set_idempotent(
  p_idem_key text, p_request_hash text, p_retention_ms bigint, p_record_bytes integer,
  p_namespace text, p_keyspace text, p_key text, p_value text, p_bytes integer, p_expires_at bigint,
  p_if_version bigint, p_max_keys bigint, p_namespace_budget bigint, p_now bigint,
  OUT result text, OUT new_version bigint, OUT status integer, OUT replayed boolean)
LANGUAGE plpgsql AS $$
BEGIN
  SELECT s.result, s.new_version, s.status, s.replayed INTO result, new_version, status, replayed
    FROM orrery_state_set_fenced(NULL, p_idem_key, p_request_hash, p_retention_ms, p_record_bytes, p_namespace, p_keyspace, p_key, p_value,
      p_bytes, p_expires_at, p_if_version, p_max_keys, p_namespace_budget, p_now) s;
END
$$;
--> statement-breakpoint
-- A delete with a fence (p_fence NULL: not checked) and an idempotency key (p_idem_key NULL:
-- none). result: orrery_state_delete's results, 'idempotency_mismatch' or 'fenced' (with
-- current_fence); status as in 0006 when an outcome is stored or replayed.
CREATE OR REPLACE FUNCTION orrery_state_delete_fenced(
  p_fence bigint, p_idem_key text, p_request_hash text, p_retention_ms bigint, p_record_bytes integer,
  p_namespace text, p_keyspace text, p_key text, p_if_version bigint, p_now bigint,
  OUT result text, OUT status integer, OUT replayed boolean, OUT current_fence bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_claim record;
  v_result text;
  v_status integer;
BEGIN
  replayed := false;
  IF p_idem_key IS NOT NULL THEN
    SELECT * INTO v_claim FROM orrery_state_idempotency_claim(p_namespace, p_keyspace, p_idem_key, p_request_hash, p_now + p_retention_ms, p_record_bytes, p_now);
    IF v_claim.claim = 'idempotency_mismatch' THEN
      result := 'idempotency_mismatch';
      RETURN;
    ELSIF v_claim.claim = 'replay' THEN
      result := v_claim.stored_result;
      status := v_claim.stored_status;
      replayed := true;
      RETURN;
    END IF;
  END IF;
  IF p_fence IS NOT NULL THEN
    current_fence := orrery_state_fence_check(p_namespace, p_keyspace, p_key, p_fence);
    IF current_fence IS NOT NULL THEN
      IF p_idem_key IS NOT NULL THEN
        DELETE FROM state_idempotency i WHERE i.namespace = p_namespace AND i.keyspace = p_keyspace AND i.idem_key = p_idem_key;
      END IF;
      result := 'fenced';
      RETURN;
    END IF;
  END IF;
  SELECT d.result INTO v_result FROM orrery_state_delete(p_namespace, p_keyspace, p_key, p_if_version, p_now) d;
  v_status := CASE
    WHEN v_result = 'deleted' THEN 200
    WHEN v_result = 'missing' AND p_if_version IS NULL THEN 404
    ELSE 412
  END;
  IF p_idem_key IS NOT NULL THEN
    UPDATE state_idempotency i SET status = v_status, result = v_result
      WHERE i.namespace = p_namespace AND i.keyspace = p_keyspace AND i.idem_key = p_idem_key;
  END IF;
  result := v_result;
  status := v_status;
END
$$;
--> statement-breakpoint
-- 0006's function, now one implementation with the fenced one (no fence).
CREATE OR REPLACE FUNCTION orrery_state_delete_idempotent(
  p_idem_key text, p_request_hash text, p_retention_ms bigint, p_record_bytes integer,
  p_namespace text, p_keyspace text, p_key text, p_if_version bigint, p_now bigint,
  OUT result text, OUT status integer, OUT replayed boolean)
LANGUAGE plpgsql AS $$
BEGIN
  SELECT d.result, d.status, d.replayed INTO result, status, replayed
    FROM orrery_state_delete_fenced(NULL, p_idem_key, p_request_hash, p_retention_ms, p_record_bytes, p_namespace, p_keyspace, p_key, p_if_version, p_now) d;
END
$$;
--> statement-breakpoint
-- Keyspace deletion as in 0005, removing the keyspace's fences too -- first, before the #meta
-- lock (the lock order above: a fenced writer holds its fence row while it waits for #meta).
-- Keeps 0005's orrery_state_record_changes call (the change feed).
CREATE OR REPLACE FUNCTION orrery_state_delete_keyspace(p_namespace text, p_keyspace text, p_now bigint, OUT deleted integer)
LANGUAGE plpgsql AS $$
DECLARE
  v_keys text[];
  v_ops text[];
  v_versions bigint[];
BEGIN
  DELETE FROM state_fences f WHERE f.namespace = p_namespace AND f.keyspace = p_keyspace;
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

-- Idempotent writes (docs/state.md "Idempotent writes"; issue 22 part 2).
--
-- A PUT, CAS or DELETE sent with `Idempotency-Key` stores its outcome in state_idempotency, in
-- the write's own transaction: orrery_state_set_idempotent / orrery_state_delete_idempotent
-- claim the key, call orrery_state_set / orrery_state_delete (whatever migration defines them
-- last: these wrappers neither copy nor replace them, so the change feed of 0005 and any later
-- version keep working) and store what they answered, all in one statement. A crash before the
-- commit leaves neither the write nor the outcome; after it, both.
--
-- Exactly once under concurrent retries: the claim is an INSERT of the (namespace, keyspace,
-- key) row ON CONFLICT DO NOTHING. A second transaction inserting the same key waits for the
-- first to end (Postgres waits on the conflicting, uncommitted row), then finds the committed
-- outcome (a replay) -- or, if the first rolled back, claims the key itself. A row is never
-- committed while `pending`: the claimant updates it with the outcome, or deletes it when the
-- write was refused for a quota (never stored: freeing space and retrying must succeed).
--
-- Lock order: idempotency row -> `#namespace` -> keyspace `#meta` -> entry -> change head.
-- Only idempotent writes lock idempotency rows and they take theirs first; the sweeper's
-- DELETE holds nothing else. No cycle.
--
-- Quota: a stored outcome is not a key (maxKeys ignores it). Its `bytes` (64 + the key's
-- length, idempotencyRecordBytes in @orrery/spec) count against the namespace byte budget
-- while it is retained: with a budget, every set (idempotent or not) goes through
-- orrery_state_set_idempotent, which sums the namespace's retained outcomes under the
-- `#namespace` lock and hands orrery_state_set what is left of the budget. A delete, and the
-- outcome of a refused precondition, are stored without a budget check (a delete must always
-- be able to free space) but count from then on.

CREATE TABLE "state_idempotency" (
	"namespace" text NOT NULL,
	"keyspace" text NOT NULL,
	"idem_key" text COLLATE "C" NOT NULL,
	"request_hash" text NOT NULL,
	"status" integer NOT NULL,
	"result" text NOT NULL,
	"version" bigint,
	"bytes" integer NOT NULL,
	"expires_at" bigint NOT NULL,
	CONSTRAINT "state_idempotency_namespace_keyspace_idem_key_pk" PRIMARY KEY("namespace","keyspace","idem_key")
);
--> statement-breakpoint
CREATE INDEX "state_idempotency_expiry_idx" ON "state_idempotency" USING btree ("expires_at");
--> statement-breakpoint
-- Claims an idempotency key for this transaction, or reports what it already holds.
-- claim: 'claimed' (a `pending` row now locked by this transaction; a row past its retention is
-- taken over), 'replay' (the stored outcome is in the stored_* columns) or 'idempotency_mismatch'
-- (the key holds another request's outcome).
CREATE OR REPLACE FUNCTION orrery_state_idempotency_claim(
  p_namespace text, p_keyspace text, p_idem_key text, p_request_hash text, p_expires_at bigint, p_bytes integer, p_now bigint,
  OUT claim text, OUT stored_status integer, OUT stored_result text, OUT stored_version bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_row record;
BEGIN
  LOOP
    INSERT INTO state_idempotency (namespace, keyspace, idem_key, request_hash, status, result, version, bytes, expires_at)
      VALUES (p_namespace, p_keyspace, p_idem_key, p_request_hash, 0, 'pending', NULL, p_bytes, p_expires_at)
      ON CONFLICT DO NOTHING;
    IF FOUND THEN
      claim := 'claimed';
      RETURN;
    END IF;
    -- A new statement, a new READ COMMITTED snapshot: the other claimant's commit is visible.
    SELECT i.request_hash, i.status, i.result, i.version, i.expires_at INTO v_row FROM state_idempotency i
      WHERE i.namespace = p_namespace AND i.keyspace = p_keyspace AND i.idem_key = p_idem_key FOR UPDATE;
    IF FOUND THEN
      IF v_row.expires_at <= p_now THEN
        UPDATE state_idempotency i SET request_hash = p_request_hash, status = 0, result = 'pending', version = NULL, bytes = p_bytes, expires_at = p_expires_at
          WHERE i.namespace = p_namespace AND i.keyspace = p_keyspace AND i.idem_key = p_idem_key;
        claim := 'claimed';
      ELSIF v_row.request_hash <> p_request_hash THEN
        claim := 'idempotency_mismatch';
      ELSE
        claim := 'replay';
        stored_status := v_row.status;
        stored_result := v_row.result;
        stored_version := v_row.version;
      END IF;
      RETURN;
    END IF;
    -- The sweeper removed the expired row between the two statements: claim again.
  END LOOP;
END
$$;
--> statement-breakpoint
-- A set with an idempotency key (p_idem_key NULL: none, only the budget part below) and, with a
-- namespace byte budget, the retained outcomes counted against it. Arguments after
-- p_record_bytes are orrery_state_set's. result: orrery_state_set's results, or
-- 'idempotency_mismatch'; status: the stored HTTP status (200, 412) when the outcome is stored
-- or replayed; replayed: true when nothing was written because the key held this outcome.
CREATE OR REPLACE FUNCTION orrery_state_set_idempotent(
  p_idem_key text, p_request_hash text, p_retention_ms bigint, p_record_bytes integer,
  p_namespace text, p_keyspace text, p_key text, p_value text, p_bytes integer, p_expires_at bigint,
  p_if_version bigint, p_max_keys bigint, p_namespace_budget bigint, p_now bigint,
  OUT result text, OUT new_version bigint, OUT status integer, OUT replayed boolean)
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
-- A delete with an idempotency key. result: orrery_state_delete's results ('deleted',
-- 'missing', 'version_conflict') or 'idempotency_mismatch'; status: 200, 404 (missing, no
-- precondition) or 412 (a precondition failed, also on a missing key).
CREATE OR REPLACE FUNCTION orrery_state_delete_idempotent(
  p_idem_key text, p_request_hash text, p_retention_ms bigint, p_record_bytes integer,
  p_namespace text, p_keyspace text, p_key text, p_if_version bigint, p_now bigint,
  OUT result text, OUT status integer, OUT replayed boolean)
LANGUAGE plpgsql AS $$
DECLARE
  v_claim record;
  v_result text;
  v_status integer;
BEGIN
  replayed := false;
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
  SELECT d.result INTO v_result FROM orrery_state_delete(p_namespace, p_keyspace, p_key, p_if_version, p_now) d;
  v_status := CASE
    WHEN v_result = 'deleted' THEN 200
    WHEN v_result = 'missing' AND p_if_version IS NULL THEN 404
    ELSE 412
  END;
  UPDATE state_idempotency i SET status = v_status, result = v_result
    WHERE i.namespace = p_namespace AND i.keyspace = p_keyspace AND i.idem_key = p_idem_key;
  result := v_result;
  status := v_status;
END
$$;

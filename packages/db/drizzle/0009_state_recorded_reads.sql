-- Recorded reads (docs/state.md "Recorded reads"): a GET sent with `Idempotency-Key` stores its
-- answer, so a retry of an invocation on another worker reads exactly what the first attempt
-- read (the runtime numbers ctx.state calls per invocation: `Idempotency-Key: <invocation>.<n>`).
--
-- The record is a state_idempotency row like a write's outcome: result `found` (status 200) with
-- the entry's value, version and deadline in the new nullable columns, or `missing` (404). Its
-- `bytes` add the value's bytes to the outcome's (recordedReadBytes in @orrery/spec): the record
-- holds a copy of the value for its retention.
--
-- orrery_state_get_recorded is one statement: it claims the key with 0006's
-- orrery_state_idempotency_claim (an INSERT ... ON CONFLICT DO NOTHING of a `pending` row; a
-- concurrent request with the same key waits for this transaction, then replays its record),
-- reads the live entry in a statement of its own (a fresh READ COMMITTED snapshot taken after the
-- claim: a committed value at the time of the request, so the read is linearizable) and stores
-- what it found on the claimed row; all in the statement's one transaction.
--
-- Byte budget: with one, the `#namespace` meta row is locked (as a budgeted write does) and the
-- namespace's live values and retained outcomes are summed under it; a record that does not fit
-- is refused (`quota_namespace_bytes`) and its claim deleted -- never answered unrecorded, which
-- would give its replay a different answer.
--
-- Lock order: idempotency row -> `#namespace` (only with a budget); the entry is read without a
-- lock. The same prefix as every idempotent write: no cycle.
ALTER TABLE "state_idempotency" ADD COLUMN "value" text;--> statement-breakpoint
ALTER TABLE "state_idempotency" ADD COLUMN "value_expires_at" bigint;--> statement-breakpoint
-- 0006's claim, unchanged but for one thing: taking over a row past its retention also clears
-- the value a recorded read left on it, so a copy of user data never outlives its record.
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
        UPDATE state_idempotency i SET request_hash = p_request_hash, status = 0, result = 'pending', version = NULL, bytes = p_bytes, expires_at = p_expires_at,
            value = NULL, value_expires_at = NULL
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
-- result: `found`, `missing`, `idempotency_mismatch` or `quota_namespace_bytes`; status: 200 or
-- 404 for a record; value / version / value_expires_at: the entry the record holds (`found`);
-- replayed: true when the record is an earlier request's (the key was not read now).
CREATE OR REPLACE FUNCTION orrery_state_get_recorded(
  p_idem_key text, p_request_hash text, p_retention_ms bigint, p_record_bytes integer,
  p_namespace text, p_keyspace text, p_key text, p_namespace_budget bigint, p_now bigint,
  OUT result text, OUT status integer, OUT value text, OUT version bigint, OUT value_expires_at bigint, OUT replayed boolean)
LANGUAGE plpgsql AS $$
DECLARE
  v_claim record;
  v_entry record;
  v_bytes integer := p_record_bytes;
  v_used bigint;
BEGIN
  replayed := false;
  SELECT * INTO v_claim FROM orrery_state_idempotency_claim(p_namespace, p_keyspace, p_idem_key, p_request_hash, p_now + p_retention_ms, p_record_bytes, p_now);
  IF v_claim.claim = 'idempotency_mismatch' THEN
    result := 'idempotency_mismatch';
    RETURN;
  ELSIF v_claim.claim = 'replay' THEN
    -- The claim holds the committed row FOR UPDATE: read the whole record from it.
    SELECT i.result, i.status, i.value, i.version, i.value_expires_at INTO result, status, value, version, value_expires_at
      FROM state_idempotency i WHERE i.namespace = p_namespace AND i.keyspace = p_keyspace AND i.idem_key = p_idem_key;
    replayed := true;
    RETURN;
  END IF;
  IF p_namespace_budget > 0 THEN
    PERFORM orrery_state_lock_meta(p_namespace, '#namespace');
  END IF;
  SELECT e.value, e.bytes, e.version, e.expires_at INTO v_entry FROM state_entries e
    WHERE e.namespace = p_namespace AND e.keyspace = p_keyspace AND e.key = p_key AND (e.expires_at IS NULL OR e.expires_at > p_now);
  IF FOUND THEN
    result := 'found';
    status := 200;
    value := v_entry.value;
    version := v_entry.version;
    value_expires_at := v_entry.expires_at;
    v_bytes := p_record_bytes + v_entry.bytes;
  ELSE
    result := 'missing';
    status := 404;
  END IF;
  IF p_namespace_budget > 0 THEN
    -- Under the namespace lock every budgeted writer sees the same sums; this claim is still `pending`.
    SELECT coalesce(sum(e.bytes), 0) INTO v_used FROM state_entries e
      WHERE e.namespace = p_namespace AND (e.expires_at IS NULL OR e.expires_at > p_now);
    v_used := v_used + (SELECT coalesce(sum(i.bytes), 0) FROM state_idempotency i
      WHERE i.namespace = p_namespace AND i.expires_at > p_now AND i.result <> 'pending');
    IF v_used + v_bytes > p_namespace_budget THEN
      DELETE FROM state_idempotency i WHERE i.namespace = p_namespace AND i.keyspace = p_keyspace AND i.idem_key = p_idem_key;
      result := 'quota_namespace_bytes';
      status := NULL;
      value := NULL;
      version := NULL;
      value_expires_at := NULL;
      RETURN;
    END IF;
  END IF;
  UPDATE state_idempotency i SET status = orrery_state_get_recorded.status, result = orrery_state_get_recorded.result,
      version = orrery_state_get_recorded.version, value = orrery_state_get_recorded.value,
      value_expires_at = orrery_state_get_recorded.value_expires_at, bytes = v_bytes
    WHERE i.namespace = p_namespace AND i.keyspace = p_keyspace AND i.idem_key = p_idem_key;
END
$$;

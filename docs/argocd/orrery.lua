-- Argo CD health check for every orrery.dev kind (resource.customizations key "orrery.dev/*", Argo CD 2.6+).
-- One script: the kinds read their conditions the same way (kstatus, as Flux and kpt do: an
-- unobserved generation or Reconciling=True is Progressing, Stalled=True is Degraded); each kind's
-- own rule is a function below, picked by obj.kind.
local function condition(t)
  if obj.status ~= nil and obj.status.conditions ~= nil then
    for _, c in ipairs(obj.status.conditions) do
      if c.type == t then return c end
    end
  end
  return nil
end
local function why(c)
  if c == nil then return "" end
  if c.message ~= nil and c.message ~= "" then return (c.reason or "") .. ": " .. c.message end
  return c.reason or ""
end
local function isTrue(c) return c ~= nil and c.status == "True" end
local function health(status, message) return { status = status, message = message } end
local waiting = health("Progressing", "Waiting for the Orrery operator to report status")
local function hasConditions() return obj.status ~= nil and obj.status.conditions ~= nil end
-- A spec change the operator has not seen yet: whatever the conditions say is about the old spec.
local function unobserved()
  local generation = obj.metadata.generation
  local observed = nil
  if obj.status ~= nil then observed = obj.status.observedGeneration end
  if generation ~= nil and observed ~= nil and observed < generation then
    return health("Progressing", "Generation " .. generation .. " not yet observed by the operator (observed " .. observed .. ")")
  end
  return nil
end

local rules = {}

-- Stalled=True: the latest revision failed, or a rule blocks the rollout.
function rules.Function()
  if not hasConditions() then return waiting end
  local lagging = unobserved()
  if lagging ~= nil then return lagging end
  local stalled = condition("Stalled")
  if isTrue(stalled) then return health("Degraded", why(stalled)) end
  local ready = condition("Ready")
  if isTrue(ready) then return health("Healthy", obj.status.latestReadyRevision and ("Serving " .. obj.status.latestReadyRevision) or "") end
  -- Ready only points at ConfigurationsReady and RoutesReady: take the words of the one not True.
  local detail = condition("ConfigurationsReady")
  if detail == nil or detail.status == "True" then detail = condition("RoutesReady") end
  if detail == nil or detail.status == "True" then detail = ready end
  local message = why(detail)
  if message == "" then message = "Waiting for the Function to become ready" end
  if ready ~= nil and ready.status == "False" then return health("Degraded", message) end
  return health("Progressing", message)
end

-- Created by the operator (one per template change), shown in a Function's tree. Stalled=True or
-- Ready=False (workers crash, a secret is missing, no worker became ready within the progress
-- deadline) is Degraded; a revision no traffic reaches and that never ran is Suspended.
function rules.Revision()
  local ready = condition("Ready")
  if ready == nil then return waiting end
  local stalled = condition("Stalled")
  if isTrue(stalled) then return health("Degraded", why(stalled)) end
  if ready.status == "True" then return health("Healthy", why(ready)) end
  if ready.status == "False" then return health("Degraded", why(ready)) end
  if ready.reason == "Inactive" then return health("Suspended", why(ready)) end
  return health("Progressing", why(ready))
end

-- Ready once accepted (its warm pool starts with the first pool revision).
function rules.Environment()
  local ready = condition("Ready")
  if ready == nil then return waiting end
  local lagging = unobserved()
  if lagging ~= nil then return lagging end
  if ready.status == "True" then return health("Healthy", ready.message or "") end
  if ready.status == "False" then return health("Degraded", (ready.reason or "") .. ": " .. (ready.message or "")) end
  return health("Progressing", ready.message or "")
end

-- Degraded: Stalled (nothing can run, e.g. no etcd), a member unhealthy or quorum at risk
-- (Degraded=True), a failed membership step, or no quorum while nothing is under way.
-- Progressing: an unobserved generation, bootstrapping or a membership change (Reconciling=True).
function rules.RegistryCluster()
  if not hasConditions() then return waiting end
  local stalled, degraded, progressing = condition("Stalled"), condition("Degraded"), condition("Progressing")
  local reconciling, available = condition("Reconciling"), condition("Available")
  if isTrue(stalled) then return health("Degraded", why(stalled)) end
  if isTrue(degraded) then return health("Degraded", why(degraded)) end
  if isTrue(progressing) and progressing.reason == "StepFailed" then return health("Degraded", why(progressing)) end
  local lagging = unobserved()
  if lagging ~= nil then return lagging end
  if isTrue(progressing) then return health("Progressing", why(progressing)) end
  if isTrue(reconciling) then return health("Progressing", why(reconciling)) end
  if isTrue(available) then return health("Healthy", available.message or "") end
  if available ~= nil and available.status == "False" then return health("Degraded", why(available)) end
  return health("Progressing", "Waiting for an Available condition")
end

-- Degraded: settings that cannot be applied (Stalled=True) or sync errors (Degraded=True).
-- Progressing: an unobserved generation, settings rolling out, tables still syncing.
-- Unknown: no target replicas were found (nothing to judge yet).
function rules.StateSync()
  if not hasConditions() then return waiting end
  local stalled, degraded, progressing, ready = condition("Stalled"), condition("Degraded"), condition("Progressing"), condition("Ready")
  if isTrue(stalled) then return health("Degraded", why(stalled)) end
  if isTrue(degraded) then return health("Degraded", why(degraded)) end
  local lagging = unobserved()
  if lagging ~= nil then return lagging end
  if isTrue(progressing) then return health("Progressing", why(progressing)) end
  if isTrue(ready) then return health("Healthy", ready.message or "") end
  if ready == nil then return health("Progressing", "Waiting for a Ready condition") end
  if ready.reason == "NoReplicas" then return health("Unknown", why(ready)) end
  if ready.status == "False" and ready.reason ~= "Syncing" then return health("Degraded", why(ready)) end
  return health("Progressing", why(ready))
end

local rule = rules[obj.kind]
if rule == nil then return health("Unknown", "No Orrery health rule for kind " .. tostring(obj.kind)) end
return rule()

-- Argo CD health check for orrery.dev/RegistryCluster (resource.customizations.health.orrery.dev_RegistryCluster).
-- Degraded: Stalled (nothing can run, e.g. no etcd), a member unhealthy or quorum at risk
-- (Degraded=True), a failed membership step, or no quorum while nothing is under way.
-- Progressing: an unobserved generation, bootstrapping or a membership change (Reconciling=True).
hs = {}
local function condition(t)
  if obj.status ~= nil and obj.status.conditions ~= nil then
    for _, c in ipairs(obj.status.conditions) do
      if c.type == t then return c end
    end
  end
  return nil
end
local function why(c)
  if c.message ~= nil and c.message ~= "" then return (c.reason or "") .. ": " .. c.message end
  return c.reason or ""
end
local function isTrue(c) return c ~= nil and c.status == "True" end
if obj.status == nil or obj.status.conditions == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the Orrery operator to report status"
  return hs
end
local stalled = condition("Stalled")
local degraded = condition("Degraded")
local progressing = condition("Progressing")
local reconciling = condition("Reconciling")
local available = condition("Available")
local generation = obj.metadata.generation
local observed = obj.status.observedGeneration
if isTrue(stalled) then
  hs.status = "Degraded"
  hs.message = why(stalled)
elseif isTrue(degraded) then
  hs.status = "Degraded"
  hs.message = why(degraded)
elseif isTrue(progressing) and progressing.reason == "StepFailed" then
  hs.status = "Degraded"
  hs.message = why(progressing)
elseif generation ~= nil and observed ~= nil and observed < generation then
  hs.status = "Progressing"
  hs.message = "Generation " .. generation .. " not yet observed by the operator (observed " .. observed .. ")"
elseif isTrue(progressing) then
  hs.status = "Progressing"
  hs.message = why(progressing)
elseif isTrue(reconciling) then
  hs.status = "Progressing"
  hs.message = why(reconciling)
elseif isTrue(available) then
  hs.status = "Healthy"
  hs.message = available.message or ""
elseif available ~= nil and available.status == "False" then
  hs.status = "Degraded"
  hs.message = why(available)
else
  hs.status = "Progressing"
  hs.message = "Waiting for an Available condition"
end
return hs

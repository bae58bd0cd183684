-- Argo CD health check for orrery.dev/Function (resource.customizations.health.orrery.dev_Function).
-- Same reading as kstatus (Flux, kpt): an unobserved generation or Reconciling=True is Progressing,
-- Stalled=True (the latest revision failed, or a rule blocks the rollout) is Degraded.
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
  if c == nil then return "" end
  if c.message ~= nil and c.message ~= "" then return (c.reason or "") .. ": " .. c.message end
  return c.reason or ""
end
if obj.status == nil or obj.status.conditions == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the Orrery operator to report status"
  return hs
end
local generation = obj.metadata.generation
local observed = obj.status.observedGeneration
if generation ~= nil and observed ~= nil and observed < generation then
  hs.status = "Progressing"
  hs.message = "Generation " .. generation .. " not yet observed by the operator (observed " .. observed .. ")"
  return hs
end
local stalled = condition("Stalled")
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = why(stalled)
  return hs
end
local ready = condition("Ready")
if ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  if obj.status.latestReadyRevision ~= nil then hs.message = "Serving " .. obj.status.latestReadyRevision else hs.message = "" end
  return hs
end
-- Ready only points at ConfigurationsReady and RoutesReady: take the words of the one not True.
local detail = condition("ConfigurationsReady")
if detail == nil or detail.status == "True" then detail = condition("RoutesReady") end
if detail == nil or detail.status == "True" then detail = ready end
if ready ~= nil and ready.status == "False" then
  hs.status = "Degraded"
else
  hs.status = "Progressing"
end
hs.message = why(detail)
if hs.message == "" then hs.message = "Waiting for the Function to become ready" end
return hs

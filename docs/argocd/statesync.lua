-- Argo CD health check for orrery.dev/StateSync (resource.customizations.health.orrery.dev_StateSync).
-- Degraded: settings that cannot be applied (Stalled=True) or sync errors (Degraded=True).
-- Progressing: an unobserved generation, settings rolling out, tables still syncing.
-- Unknown: no target replicas were found (nothing to judge yet).
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
local ready = condition("Ready")
local generation = obj.metadata.generation
local observed = obj.status.observedGeneration
if isTrue(stalled) then
  hs.status = "Degraded"
  hs.message = why(stalled)
elseif isTrue(degraded) then
  hs.status = "Degraded"
  hs.message = why(degraded)
elseif generation ~= nil and observed ~= nil and observed < generation then
  hs.status = "Progressing"
  hs.message = "Generation " .. generation .. " not yet observed by the operator (observed " .. observed .. ")"
elseif isTrue(progressing) then
  hs.status = "Progressing"
  hs.message = why(progressing)
elseif isTrue(ready) then
  hs.status = "Healthy"
  hs.message = ready.message or ""
elseif ready ~= nil and ready.reason == "NoReplicas" then
  hs.status = "Unknown"
  hs.message = why(ready)
elseif ready ~= nil and ready.status == "False" and ready.reason ~= "Syncing" then
  hs.status = "Degraded"
  hs.message = why(ready)
else
  hs.status = "Progressing"
  if ready ~= nil then hs.message = why(ready) else hs.message = "Waiting for a Ready condition" end
end
return hs

-- Argo CD health check for orrery.dev/Environment (resource.customizations.health.orrery.dev_Environment).
-- An Environment is Ready once accepted (its warm pool starts with the first pool revision).
hs = {}
local ready = nil
if obj.status ~= nil and obj.status.conditions ~= nil then
  for _, c in ipairs(obj.status.conditions) do
    if c.type == "Ready" then ready = c end
  end
end
local generation = obj.metadata.generation
local observed = nil
if obj.status ~= nil then observed = obj.status.observedGeneration end
if ready == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the Orrery operator to report status"
elseif generation ~= nil and observed ~= nil and observed < generation then
  hs.status = "Progressing"
  hs.message = "Generation " .. generation .. " not yet observed by the operator (observed " .. observed .. ")"
elseif ready.status == "True" then
  hs.status = "Healthy"
  hs.message = ready.message or ""
elseif ready.status == "False" then
  hs.status = "Degraded"
  hs.message = (ready.reason or "") .. ": " .. (ready.message or "")
else
  hs.status = "Progressing"
  hs.message = ready.message or ""
end
return hs

-- Argo CD health check for orrery.dev/Revision (resource.customizations.health.orrery.dev_Revision).
-- Revisions are created by the operator (one per template change) and show in a Function's tree.
-- Stalled=True or Ready=False (workers crash, a secret is missing, no worker became ready within
-- the progress deadline) is Degraded; a revision no traffic reaches and that never ran is Suspended.
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
local ready = condition("Ready")
if ready == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the Orrery operator to report status"
  return hs
end
local stalled = condition("Stalled")
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = why(stalled)
elseif ready.status == "True" then
  hs.status = "Healthy"
  hs.message = why(ready)
elseif ready.status == "False" then
  hs.status = "Degraded"
  hs.message = why(ready)
elseif ready.reason == "Inactive" then
  hs.status = "Suspended"
  hs.message = why(ready)
else
  hs.status = "Progressing"
  hs.message = why(ready)
end
return hs

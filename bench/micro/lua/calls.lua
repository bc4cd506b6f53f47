-- calls: a small static function called in a hot counted loop.
local function step(x, i)
  return (x ~ i) + 3
end

local N = 40000000
local s = 0
for i = 0, N - 1 do
  s = step(s, i)
end
print(s)

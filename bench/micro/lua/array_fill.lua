-- array_fill: fill a float array of 1e6 elements and copy it, scaled, into a
-- second one, repeatedly (float array stores and loads); prints a float
-- checksum of the second array.
local N, ROUNDS = 1000000, 25

local function fmt_float(x)
  local s
  for p = 15, 17 do
    s = string.format("%." .. p .. "g", x)
    if tonumber(s) == x then break end
  end
  if not s:find("[.eni]") then s = s .. ".0" end
  return s
end

local a, b = {}, {}
for i = 1, N do
  a[i] = 0.0
  b[i] = 0.0
end
local sum = 0.0
for r = 0, ROUNDS - 1 do
  local base = r * 0.25
  for i = 1, N do
    a[i] = (i - 1) * 0.5 + base
  end
  for i = 1, N do
    b[i] = a[i] * 1.5
  end
  sum = sum + b[r + 1] + b[N]
end
print(fmt_float(sum))

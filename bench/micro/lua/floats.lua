-- floats: Mandelbrot escape-time kernel over a W x H grid (float multiply,
-- add, compare in the inner loop); prints the total iteration count and a
-- float checksum of the final z values.
local W, H, MAXIT = 640, 480, 200

-- Prints a float the way tally does: the shortest of %.15g/%.16g/%.17g that
-- reads back as the same double, with ".0" when it looks like an integer.
local function fmt_float(x)
  local s
  for p = 15, 17 do
    s = string.format("%." .. p .. "g", x)
    if tonumber(s) == x then break end
  end
  if not s:find("[.eni]") then s = s .. ".0" end
  return s
end

local count, acc = 0, 0.0
for py = 0, H - 1 do
  local ci = py * 2.0 / H - 1.0
  for px = 0, W - 1 do
    local cr = px * 3.0 / W - 2.0
    local zr, zi = 0.0, 0.0
    local it = 0
    while it < MAXIT do
      local zr2 = zr * zr
      local zi2 = zi * zi
      if zr2 + zi2 > 4.0 then break end
      zi = 2.0 * zr * zi + ci
      zr = zr2 - zi2 + cr
      it = it + 1
    end
    count = count + it
    acc = acc + zr
  end
end
print(count)
print(fmt_float(acc))

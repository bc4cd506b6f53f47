-- virtual: polymorphic method calls over three classes of a small hierarchy
-- (Square, Rect, Tri extend Shape) plus a call of the interface method
-- size(k) on the same objects.
local Shape = {}
Shape.__index = Shape

local Square = setmetatable({}, {__index = Shape})
Square.__index = Square
function Square.new(side)
  return setmetatable({side = side}, Square)
end
function Square:area() return self.side * self.side end
function Square:size(k) return self.side + k end

local Rect = setmetatable({}, {__index = Shape})
Rect.__index = Rect
function Rect.new(w, h)
  return setmetatable({w = w, h = h}, Rect)
end
function Rect:area() return self.w * self.h end
function Rect:size(k) return self.w + self.h + k end

local Tri = setmetatable({}, {__index = Shape})
Tri.__index = Tri
function Tri.new(b, h)
  return setmetatable({b = b, h = h}, Tri)
end
function Tri:area() return (self.b * self.h) >> 1 end
function Tri:size(k) return self.b + 2 * k end

local N, ROUNDS = 999, 6000
local shapes = {}
for i = 0, N - 1 do
  local kind = i % 3
  if kind == 0 then
    shapes[i + 1] = Square.new(i % 17 + 1)
  elseif kind == 1 then
    shapes[i + 1] = Rect.new(i % 13 + 1, i % 7 + 2)
  else
    shapes[i + 1] = Tri.new(i % 11 + 3, i % 5 + 1)
  end
end

local s = 0
for r = 1, ROUNDS do
  for i = 1, N do
    local sh = shapes[i]
    s = s + sh:area() + sh:size(r)
  end
end
print(s)

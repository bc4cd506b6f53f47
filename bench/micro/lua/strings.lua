-- strings: grow a string by concatenating short pieces, adding up the
-- lengths; start again from "" every 100 pieces.
local ROUNDS, PIECES = 120000, 100
local total = 0
local s = ""
for r = 1, ROUNDS do
  s = ""
  for j = 1, PIECES do
    s = s .. "ab"
    total = total + #s
  end
end
print(total)
print(s)

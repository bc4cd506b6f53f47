-- array_sum: fill an int array of 1e6 elements once, then sum it
-- repeatedly (array loads in a counted loop).
local N, ROUNDS = 1000000, 80
local a = {}
for i = 1, N do
  a[i] = (i - 1) * 7 % 1000
end
local s = 0
for r = 1, ROUNDS do
  for i = 1, N do
    s = s + a[i]
  end
end
print(s)

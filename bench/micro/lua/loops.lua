-- loops: three nested counted int loops folding i*j xor k into a checksum
-- that wraps around 64 bits.
local N = 1000
local s = 0
for i = 0, N - 1 do
  for j = 0, N - 1 do
    for k = 0, 49 do
      s = s * 31 + (i * j ~ k)
    end
  end
end
print(s)

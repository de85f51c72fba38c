-- Number held for another branch of #25 (findings 5 and 6: 0011 signal keys per waitpoint, 0012 ids
-- never reused). This placeholder only keeps the numbers contiguous on this branch; the merge takes
-- that branch's file in its place.
SELECT 1;

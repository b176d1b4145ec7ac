-- Expected diagnosis: not_own (none of the learner's kernels ran).
-- Problem reduce_sum; any size.
-- A launcher that launches none of the learner's kernels and fills the output
-- some other way: the row is refused (a row counts only when the learner's
-- own kernel computes it).
return function(gpu, k, args)
  args.output:fill(0)
end

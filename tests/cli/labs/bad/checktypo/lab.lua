return lab {
  id = "checktypo",
  title = "A lab whose milestone check misspells a row's field",
  order = 93,
  problem = "reduce_sum",
  sizes = { "2^10" },
  steps = { step "Only step" [[ text ]] },
  exercise = exercise { kernel = "starter.cu", launcher = "starter.lua" },
  milestones = {
    milestone { id = "fast", text = "At least half the copy bandwidth",
                check = function(r)
                  local mine = r.exercise
                  if not mine then return nil end
                  return mine.pct_peek >= 50, mine.pct_peek
                end },
    milestone { id = "fine", text = "Correct",
                check = function(r)
                  local mine = r.exercise
                  if not mine then return nil end
                  return mine.correct
                end },
  },
}

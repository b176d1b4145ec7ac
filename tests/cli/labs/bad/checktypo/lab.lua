return lab {
  id = "checktypo",
  title = "A lab whose milestone check misspells a row's field",
  order = 93,
  problem = "reduce_sum",
  sizes = { "2^10" },
  steps = { step "Only step" [[ text ]] },
  milestones = {
    milestone { id = "fast", text = "At least half the copy bandwidth",
                check = function(r)
                  local cpu = r.cpu
                  if not cpu then return nil end
                  return cpu.pct_peek >= 50, cpu.pct_peek
                end },
    milestone { id = "fine", text = "Correct",
                check = function(r)
                  local cpu = r.cpu
                  if not cpu then return nil end
                  return cpu.correct
                end },
  },
}

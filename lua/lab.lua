-- lab.lua: the language lab files are written in (documented in lua/README.md).
--
-- cudalab runs this file in each lab's sandbox before the lab file, passing
-- one argument: located(fn), which returns a function that calls
-- fn(file, line, ...) with the place it was called from.
-- It returns two tables:
--   1. the constructors every lab file sees as globals: lab, step, variant,
--      milestone, quiz, exercise, checks;
--   2. the loader's private entry point, finish(result, opts), which checks
--      what the lab file returned and gives back a normalised copy together
--      with every problem found (each with its file and line).
-- Constructors only record where they were called; all checking happens in
-- finish, so one run reports every problem at once.

local located = ...

local type, next, rawget, rawlen, tostring, tonumber = type, next, rawget, rawlen, tostring, tonumber
local ipairs, pairs, select, error, pcall = ipairs, pairs, select, error, pcall
local format, rep, concat, sort = string.format, string.rep, table.concat, table.sort
local mtype, min = math.type, math.min

local problems = {}   -- { file =, line =, msg = } in the order found
local size_line       -- opts.size_line(label, from): the line a size entry is on
local quoted_line     -- opts.quoted_line(text, from): the line a quoted string is on
local made = {}       -- table made by a constructor -> { kind =, file =, line = }
local targets = {}    -- check function made by `checks` -> display target
local needs = {}      -- check function made by `checks` -> ids of the rows it compares with

local function report(file, line, msg, ...)
  problems[#problems + 1] = { file = file, line = line or 0, msg = format(msg, ...) }
end

-- Engine facts the loader checks against.
-- A problem measures one computation at several sizes (dims: how many
-- numbers a size label has); "pipeline"'s variants name its steps (each a
-- row of the shipped pipeline, "pipeline" the whole of it), and
-- "profiling"'s variants name the
-- worker's experiments (experiments/experiments.h) and which takes no sizes of
-- its own: its exercise solves another problem (exercise = "pipeline"),
-- at the sizes the exercise declares.
local PROBLEMS = {
  sgemm = { library = "cublas", dims = { 1, 3 }, form = "\"MxNxK\" such as \"4096x4096x4096\" (or one count for a cube)" },
  -- sgemm on BF16 copies of the inputs (FP32 sums): the sgemm kernels that read BF16
  gemm_bf16 = { library = "cublas_bf16", dims = { 1, 3 }, form = "\"MxNxK\" such as \"4096x4096x4096\" (or one count for a cube)" },
  pipeline = { dims = { 1 }, form = "a number of table rows such as \"2^24\" or 16777216",
               steps = { "load", "fill", "filter", "transform", "standardize", "binning", "encode",
                         "groupby", "gemm", "pipeline" } },
  managed = { dims = { 1 }, form = "an element count such as 16777216 or \"2^24\"" },
  profiling = { experiments = { "transfers", "overlap", "stride", "gemv", "blocksize", "transpose",
                                "timing", "roofline" }, exercise = "pipeline" },
  -- the basics lab's experiments; its exercises each name their own problem
  basics = { experiments = { "divergence", "occupancy", "hierarchy", "fences" } },
  -- the multigpu lab's experiments, run by one process a GPU (src/group/);
  -- its ranks run the lab's exercise themselves, a kernel file with no
  -- launcher (lua/multigpu.md), at the all-reduces' sizes
  multigpu = { experiments = { "peer", "ar_naive", "ar_ring", "ar_nccl", "dp_1gpu", "dp_serial",
                               "dp_overlap" }, kernel_only = true,
               sizes = { "8 B", "64 B", "512 B", "4 KiB", "32 KiB", "256 KiB", "2 MiB", "16 MiB",
                         "64 MiB", "256 MiB", "1 GiB" } },
}
local PROBLEM_NAMES = "sgemm, gemm_bf16, pipeline, managed, profiling, basics, multigpu, or one of "
  .. "lua/problems/ (reduce_sum, saxpy, histogram, embedding)"

-- Fields of each constructor, in the order they are checked.
local SPECS = {
  lab = {
    { "id", "string", required = true },
    { "title", "string", required = true },
    { "summary", "string", default = "" },
    { "order", "integer", default = 100 },
    { "problem", "problem" },
    { "library", "string" },
    { "sizes", "list" },
    { "time_limit", "number", default = 120 },
    { "steps", "list", required = true },
    { "variants", "list" },
    { "milestones", "list" },
    { "quizzes", "list" },
    { "exercise", "table" },
    { "exercises", "list" },
  },
  step = {
    { "title", "string", required = true },
    { "body", "string", required = true },
  },
  variant = {
    { "id", "string", required = true },
    { "title", "string", required = true },
    { "kernel", "string" },
    { "file", "string" },
    { "launcher", "string" },
    { "python", "string" },
    { "why", "string", default = "" },
  },
  milestone = {
    { "id", "string", required = true },
    { "text", "string", required = true },
    { "check", "function" },
    { "quiz", "string" },
    { "target", "string" },
    { "points", "number", default = 1 },
    { "size", "string" },
    { "exercise", "string" },
    { "needs", "list" },
  },
  quiz = {
    { "id", "string", required = true },
    { "question", "string", required = true },
    { "choices", "list", required = true },
  },
  choice = {
    { "text", "string", required = true },
    { "correct", "boolean", default = false },
    { "feedback", "string", required = true },
  },
  problem = {
    { "name", "string" },
    { "dims", "list", required = true },
    { "limits", "table" },
    { "valid", "function" },
    { "args", "list", required = true },
    { "reference", "any", required = true },
    { "builtin", "table" },
    { "cpu", "string" },
    { "library", "string" },
    { "bytes", "any" },
    { "flops", "any" },
    { "bound", "string", default = "memory" },
    { "reads_only", "boolean", default = false },
    { "hints", "table" },
  },
  arg = {
    { "name", "string", required = true },
    { "type", "string", required = true },
    { "length", "any" },
    { "value", "any" },
    { "fill", "any" },
    { "output", "any" },
  },
  exercise = {
    { "id", "string" },
    { "title", "string" },
    { "kernel", "string" },
    { "launcher", "string" },
    { "python", "string" },
    { "hints", "list" },
    { "problem", "problem" },
    { "sizes", "list" },
    { "library", "string" },
    { "variants", "list" },
  },
}

---------------------------------------------------------------------------
-- small helpers

local function quote(s)
  return "'" .. tostring(s) .. "'"
end

-- Whether name is a relative path that stays inside the lab folder.
local function relative_file(name)
  return not name:find("^/") and not name:find("\\", 1, true) and not name:find("%z")
    and name ~= ".." and not name:find("^%.%./") and not name:find("/%.%./")
    and not name:find("/%.%.$")
end

-- Edit distance, for "did you mean" on unknown field names.
local function distance(a, b)
  if #a > 32 or #b > 32 then return 99 end
  local prev = {}
  for j = 0, #b do prev[j] = j end
  for i = 1, #a do
    local cur = { [0] = i }
    for j = 1, #b do
      local cost = a:byte(i) == b:byte(j) and 0 or 1
      cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
    end
    prev = cur
  end
  return prev[#b]
end

local function suggestion(name, spec)
  local best, bestd = nil, 3
  for _, f in ipairs(spec) do
    local d = distance(name, f[1])
    if d < bestd then best, bestd = f[1], d end
  end
  return best and format(" (did you mean %s?)", quote(best)) or ""
end

-- Returns nil when t is a list (keys exactly 1..n), else a key that is not.
local function non_list_key(t)
  local n = rawlen(t)
  local k = next(t)
  while k ~= nil do
    if mtype(k) ~= "integer" or k < 1 or k > n then return k end
    k = next(t, k)
  end
  return nil
end

local ARTICLE = { integer = "an integer", list = "a list",
                  problem = "a problem's name or a problem { ... }" }

local function has_type(v, want)
  if want == "any" then
    return true
  elseif want == "problem" then
    return type(v) == "string" or type(v) == "table"
  elseif want == "integer" then
    return mtype(v) == "integer" or (mtype(v) == "float" and v == v // 1 and v == v)
  elseif want == "list" then
    return type(v) == "table" and non_list_key(v) == nil
  end
  return type(v) == want
end

local function got(v, want)
  if want == "list" and type(v) == "table" then
    return format("table (with the key %s)", quote(non_list_key(v)))
  end
  return type(v)
end

-- Checks t against SPECS[kind]; returns a copy of the well-typed fields
-- (defaults filled in) and whether every field was fine.
local function check_fields(t, kind, what, file, line)
  local spec = SPECS[kind]
  local known, unknown, positional = {}, {}, false
  for _, f in ipairs(spec) do known[f[1]] = true end
  local k = next(t)
  while k ~= nil do
    if type(k) ~= "string" then
      positional = true
    elseif not known[k] then
      unknown[#unknown + 1] = k
    end
    k = next(t, k)
  end
  local ok = true
  sort(unknown)
  for _, name in ipairs(unknown) do
    report(file, line, "%s: unknown field %s%s", what, quote(name), suggestion(name, spec))
    ok = false
  end
  if positional then
    report(file, line, "%s: has a value without a name (write fields as name = value)", what)
    ok = false
  end
  local out = {}
  for _, f in ipairs(spec) do
    local name, want = f[1], f[2]
    local v = rawget(t, name)
    if v == nil then
      if f.required then
        report(file, line, "%s: missing required field %s", what, quote(name))
        ok = false
      else
        out[name] = f.default
      end
    elseif not has_type(v, want) then
      report(file, line, "%s: field %s must be %s, got %s", what, quote(name),
             ARTICLE[want] or ("a " .. want), got(v, want))
      ok = false
    elseif want == "string" and f.required and not v:find("%S") then
      report(file, line, "%s: field %s must not be empty", what, quote(name))
      ok = false
    else
      if want == "integer" then v = v // 1 end
      out[name] = v
    end
  end
  return out, ok
end

local MAX_ID = 63

local function check_id(id, what, file, line)
  if type(id) ~= "string" then return false end
  if #id > MAX_ID or not id:find("^[%w_%-]+$") then
    report(file, line, "%s: id %s must be at most %d letters, digits, '_' or '-'",
           what, quote(id), MAX_ID)
    return false
  end
  return true
end

-- Strips the indentation shared by every non-blank line and the blank lines
-- around the text, so bodies may be indented like the code around them.  A
-- first line that starts right after the opening [[ does not count.
local function dedent(s)
  s = s:gsub("\r\n", "\n"):gsub("\t", "    ")
  local lines = {}
  for l in (s .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = l end
  local indent
  for i, l in ipairs(lines) do
    if l:find("%S") and not (i == 1 and #lines > 1 and l:find("^%S")) then
      local n = #l:match("^ *")
      indent = indent and min(indent, n) or n
    end
  end
  indent = indent or 0
  local first, last = 1, #lines
  while first <= last and not lines[first]:find("%S") do first = first + 1 end
  while last >= first and not lines[last]:find("%S") do last = last - 1 end
  local out = {}
  for i = first, last do
    local l = lines[i]
    if not (i == 1 and l:find("^%S")) then l = l:sub(indent + 1) end
    out[#out + 1] = (l:gsub(" +$", ""))
  end
  return concat(out, "\n")
end

---------------------------------------------------------------------------
-- constructors seen by lab files

local api = {}

local function construct(kind, t, file, line)
  if type(t) ~= "table" then
    report(file, line, "%s: expected a table, as in %s { ... }, got %s", kind, kind, type(t))
    t = {}
  end
  if made[t] == nil then
    made[t] = { kind = kind, file = file, line = line }
  end
  return t
end

local function constructor(kind)
  return located(function(file, line, t)
    return construct(kind, t, file, line)
  end)
end

api.lab = constructor("lab")
api.variant = constructor("variant")
api.milestone = constructor("milestone")
api.quiz = constructor("quiz")
api.exercise = constructor("exercise")
api.problem = constructor("problem")

-- step "Title" [[ body ]]   or   step { title = ..., body = ... }
api.step = located(function(file, line, t)
  if type(t) == "string" then
    return function(body)
      return construct("step", { title = t, body = body }, file, line)
    end
  end
  return construct("step", t, file, line)
end)

---------------------------------------------------------------------------
-- ready-made milestone checks

local checks = {}
api.checks = checks

local function number_text(x)
  if mtype(x) == "integer" or x == x // 1 and x < 1e15 and x > -1e15 then
    return format("%d", x // 1)
  end
  return format("%.4g", x)
end

local function fail_at(file, line, msg, ...)
  error(format("%s:%d: " .. msg, file or "?", line, ...), 0)
end

-- The fields of a result row (src/lab/rowview.c has the same list).
local ROW_FIELDS = {
  "variant", "label", "size", "kind", "status", "correct", "message", "run", "samples",
  "median_ms", "min_ms", "max_ms", "spread", "gbps", "tflops", "pct_peak", "pct_peak_theory",
  "speedup_cpu", "speedup_cpu_mt", "speedup_lib", "speedup_starter", "has_report", "rel_err",
  "threads",
}

local function check_args(file, line, name, field, bound, unit)
  if type(field) ~= "string" then
    fail_at(file, line, "checks.%s: the first argument must be a field name such as \"speedup_cpu\", got %s",
            name, type(field))
  end
  local known = false
  for _, f in ipairs(ROW_FIELDS) do known = known or f == field end
  if not known then
    local spec = {}
    for i, f in ipairs(ROW_FIELDS) do spec[i] = { f } end
    fail_at(file, line, "checks.%s: %s is not a field of a result row%s", name, quote(field),
            suggestion(field, spec))
  end
  if type(bound) ~= "number" then
    fail_at(file, line, "checks.%s: the second argument must be a number, got %s", name, type(bound))
  end
  if unit ~= nil and type(unit) ~= "string" then
    fail_at(file, line, "checks.%s: the unit must be a string such as \"x\" or \"%%\", got %s",
            name, type(unit))
  end
end

-- A row that could not run (no device, a compile or launcher error) says
-- nothing about the milestone yet: it stays pending, not missed.
local function measured(x)
  return x ~= nil and x.status ~= "error" and x.status ~= "no_device"
end

-- A figure as a miss shows it: three significant digits.
local function figure_text(v)
  if v == v // 1 and v < 1e15 and v > -1e15 then return format("%d", v // 1) end
  return format("%.3g", v)
end

-- Why a row that ran is not correct, in words.
local function not_correct(x)
  return "your kernel is not correct (" .. tostring(x.status) .. ")"
end

local function compare(name, op, ok)
  return located(function(file, line, field, bound, unit)
    check_args(file, line, name, field, bound, unit)
    local u = unit or ""
    local fn = function(r)
      local x = r.exercise
      if not measured(x) then return nil end
      if not x.correct then return false, nil, not_correct(x) end
      local v = x[field]
      if type(v) ~= "number" then
        return false, nil, field .. " was not measured in this run"
      end
      if ok(v, bound) then return true, v end
      return false, v, format("%s %s%s, needs %s %s%s", field, figure_text(v), u, op,
                              number_text(bound), u)
    end
    targets[fn] = op .. " " .. number_text(bound) .. u
    return fn
  end)
end

-- The learner's kernel gives correct results.
function checks.correct()
  local fn = function(r)
    local x = r.exercise
    if not measured(x) then return nil end
    if x.correct == true then return true end
    return false, nil, not_correct(x)
  end
  targets[fn] = "correct"
  return fn
end

-- The learner's kernel is correct and r.exercise[field] >= bound.
checks.at_least = compare("at_least", ">=", function(v, b) return v >= b end)

-- The learner's kernel is correct and r.exercise[field] <= bound.
checks.at_most = compare("at_most", "<=", function(v, b) return v <= b end)

-- The row of the run called id (a variant, the library, "cpu", "cpu_mt"),
-- at the size of the learner's row x; nil when it was not measured.
local function row_called(r, id, x)
  local found
  for _, row in ipairs(r.all) do
    if row.variant == id and row.kind ~= "exercise" and (x == nil or row.size == x.size) then
      found = row
    end
  end
  return found
end

-- The learner's kernel is correct and at least bound times as fast as the
-- row called id (0.5: within 2x of its time).
checks.speedup_over = located(function(file, line, id, bound, unit)
  if type(id) ~= "string" then
    fail_at(file, line, "checks.speedup_over: the first argument must be a row's id such as "
            .. "\"warp_shuffle\", \"cub\" or \"cpu\", got %s", type(id))
  end
  if type(bound) ~= "number" or not (bound > 0) then
    fail_at(file, line, "checks.speedup_over: the second argument must be a positive number, got %s",
            tostring(bound))
  end
  if unit ~= nil and type(unit) ~= "string" then
    fail_at(file, line, "checks.speedup_over: the unit must be a string such as \"x\", got %s", type(unit))
  end
  local u = unit or "x"
  local fn = function(r)
    local x = r.exercise
    if not measured(x) then return nil end
    if not x.correct then return false, nil, not_correct(x) end
    local other = row_called(r, id, x)
    if other == nil or other.status == "error" or other.status == "no_device" then return nil end
    if not other.correct or not other.median_ms then
      return false, nil, "the row " .. id .. " did not measure correctly (" .. tostring(other.status) .. ")"
    end
    if not x.median_ms then return false, nil, "your kernel's time was not measured" end
    local v = other.median_ms / x.median_ms
    if v >= bound then return true, v end
    return false, v, format("%s%s of %s's speed, needs >= %s%s", figure_text(v), u, id,
                            number_text(bound), u)
  end
  targets[fn] = ">= " .. number_text(bound) .. u .. " of " .. id
  needs[fn] = { id }
  return fn
end)

-- Every check holds; the value shown is the first one that has a value.
-- A miss gives the failing check's value and why (or its target).
checks.all = located(function(file, line, ...)
  local list = { ... }
  local shown = {}
  for i = 1, select("#", ...) do
    if type(list[i]) ~= "function" then
      fail_at(file, line, "checks.all: argument %d must be a check function, got %s", i, type(list[i]))
    end
    shown[#shown + 1] = targets[list[i]]
  end
  local rows = {}
  for i = 1, select("#", ...) do
    for _, id in ipairs(needs[list[i]] or {}) do rows[#rows + 1] = id end
  end
  local fn = function(r)
    local value
    for i, c in ipairs(list) do
      local reached, v, why = c(r)
      if value == nil then value = v end
      if reached == nil then return nil end
      if not reached then
        if why == nil then
          why = targets[c] and ("not met: " .. targets[c]) or format("condition %d is not met", i)
        end
        return false, v, why
      end
    end
    return true, value
  end
  targets[fn] = #shown > 0 and concat(shown, " and ") or nil
  needs[fn] = rows
  return fn
end)

---------------------------------------------------------------------------
-- checking a whole lab

local function origin(item, file, line)
  local m = made[item]
  if m then return m.kind, m.file, m.line end
  return nil, file, line
end

-- Runs each(item, index, file, line) over the list in field `field` of the
-- lab and collects what it returns.
local function each_item(list, kind, labwhat, file, line, each)
  local out = {}
  if list == nil then return out end
  for i = 1, rawlen(list) do
    local item = rawget(list, i)
    local mk, f, l = origin(item, file, line)
    if type(item) == "function" and kind == "step" then
      report(file, line, "%s: step %d has a title but no body (write step \"Title\" [[ body ]])",
             labwhat, i)
    elseif type(item) ~= "table" then
      report(file, line, "%s: %ss entry %d must be a table made by %s { ... }, got %s",
             labwhat, kind, i, kind, type(item))
    elseif mk ~= nil and mk ~= kind then
      report(f, l, "%s: %ss entry %d is a %s, not a %s", labwhat, kind, i, mk, kind)
    else
      out[#out + 1] = each(item, i, f, l)
    end
  end
  return out
end

local function no_duplicates(items, kind)
  local seen = {}
  for _, it in ipairs(items) do
    if type(it.id) == "string" then
      local first = seen[it.id]
      if first then
        report(it.file, it.line, "duplicate %s id %s (first defined at line %d)",
               kind, quote(it.id), first.line)
      else
        seen[it.id] = it
      end
    end
  end
  return seen
end

local function item_what(kind, t, i)
  local id = rawget(t, "id")
  if type(id) == "string" then return format("%s %s", kind, quote(id)) end
  return format("%s %d", kind, i)
end

local function check_step(t, i, file, line)
  local what = format("step %d", i)
  local s = check_fields(t, "step", what, file, line)
  if type(s.body) == "string" then s.body = dedent(s.body) end
  s.line, s.file = line, file
  return s
end

local function check_variant(t, i, file, line, prob)
  local what = item_what("variant", t, i)
  local v, ok = check_fields(t, "variant", what, file, line)
  v.source = v.file   -- a rung's kernels; .file is where the variant is written
  if prob and (prob.experiments or prob.steps) then
    local names = prob.experiments or prob.steps
    if ok and check_id(v.id, what, file, line) then
      local known = false
      for _, x in ipairs(names) do known = known or x == v.id end
      if not known then
        report(file, line, "%s: no %s %s (known: %s)", what,
               prob.experiments and "experiment" or "pipeline step", quote(v.id), concat(names, ", "))
      end
    end
    v.kernel = v.kernel or v.id
  elseif prob and prob.declared then
    if ok then check_id(v.id, what, file, line) end
    local folder = v.source ~= nil or v.launcher ~= nil
    if v.python ~= nil then
      if folder or v.kernel ~= nil then
        report(file, line, "%s: a Python rung has only 'python' (a .py file of the lab folder), "
               .. "no kernel, file or launcher", what)
      elseif type(v.python) ~= "string" or not relative_file(v.python) or not v.python:find("%.py$") then
        report(file, line, "%s: field 'python' must name a .py file inside the lab folder", what)
      end
    elseif folder and v.kernel ~= nil then
      report(file, line, "%s: a rung has either a kernel of cudalab's or a file and a launcher of "
             .. "the lab folder, not both", what)
    elseif folder then
      for _, f in ipairs({ "source", "launcher" }) do
        if type(v[f]) ~= "string" or not relative_file(v[f]) then
          report(file, line, "%s: field %s must name a file inside the lab folder", what,
                 quote(f == "source" and "file" or f))
        end
      end
    elseif v.kernel == nil then
      report(file, line, "%s: missing required field 'kernel' (one of cudalab's kernels), or "
             .. "'file' and 'launcher' (kernels of the lab folder)", what)
    elseif #v.kernel > MAX_ID or not v.kernel:find("^[%a_][%w_]*$") then
      report(file, line, "%s: kernel %s is not a kernel name (letters, digits and '_', at most %d)",
             what, quote(v.kernel), MAX_ID)
    elseif prob.declared.builtin == nil then
      report(file, line, "%s: kernel %s is one of cudalab's, which only a problem with a builtin "
             .. "can run (give the rung a file and a launcher)", what, quote(v.kernel))
    end
  else
    if rawget(t, "kernel") == nil then
      report(file, line, "%s: missing required field 'kernel'", what)
    end
    if v.python ~= nil then
      report(file, line, "%s: python is for the rungs of a problem the lab declares "
             .. "(lua/problems.md); a shipped problem's rungs are cudalab's kernels", what)
    end
    if v.source ~= nil or v.launcher ~= nil then
      report(file, line, "%s: file and launcher are for the rungs of a problem the lab declares "
             .. "(lua/problems.md); a shipped problem's rungs are cudalab's kernels", what)
    end
    if ok then check_id(v.id, what, file, line) end
    if ok and v.kernel and (#v.kernel > MAX_ID or not v.kernel:find("^[%a_][%w_]*$")) then
      report(file, line, "%s: kernel %s is not a kernel name (letters, digits and '_', at most %d)",
             what, quote(v.kernel), MAX_ID)
    end
  end
  v.line, v.file = line, file
  return v
end

local function check_milestone(t, i, file, line)
  local what = item_what("milestone", t, i)
  local m, ok = check_fields(t, "milestone", what, file, line)
  if ok then
    check_id(m.id, what, file, line)
    if m.check == nil and m.quiz == nil then
      report(file, line, "%s has no check function (give it check = function(r) ... end, or quiz = \"<quiz id>\")", what)
    elseif m.check ~= nil and m.quiz ~= nil then
      report(file, line, "%s has both a check function and a quiz: keep one", what)
    end
    if m.target == nil and m.check ~= nil then m.target = targets[m.check] end
    if m.needs ~= nil then
      local list = {}
      for k = 1, rawlen(m.needs) do
        local id = rawget(m.needs, k)
        if type(id) ~= "string" then
          report(file, line, "%s: needs is a list of row ids (strings), entry %d is a %s", what, k,
                 type(id))
        else
          list[#list + 1] = id
        end
      end
      m.needs = list
      if m.quiz ~= nil then report(file, line, "%s: a quiz needs no rows: leave out needs", what) end
    elseif m.check ~= nil then
      m.needs = needs[m.check]
    end
    if type(m.points) == "number" and not (m.points >= 0 and m.points <= 1000) then
      report(file, line, "%s: points must be a number from 0 to 1000, got %s", what,
             tostring(m.points))
    end
    if m.size ~= nil and m.quiz ~= nil then
      report(file, line, "%s: a quiz is not judged at a size: leave out size", what)
    end
    if m.exercise ~= nil and m.quiz ~= nil then
      report(file, line, "%s: a quiz belongs to no exercise: leave out exercise", what)
    end
  end
  m.line, m.file = line, file
  return m
end

local function check_quiz(t, i, file, line)
  local what = item_what("quiz", t, i)
  local q, ok = check_fields(t, "quiz", what, file, line)
  if ok then
    check_id(q.id, what, file, line)
    local choices, correct = {}, 0
    for ci = 1, rawlen(q.choices) do
      local c = rawget(q.choices, ci)
      local cwhat = format("%s, choice %d", what, ci)
      if type(c) ~= "table" then
        report(file, line, "%s must be a table { text = ..., feedback = ... }, got %s", cwhat, type(c))
      else
        local cc = check_fields(c, "choice", cwhat, file, line)
        if cc.correct then correct = correct + 1 end
        choices[#choices + 1] = cc
      end
    end
    if rawlen(q.choices) < 2 then
      report(file, line, "%s needs at least two choices", what)
    elseif rawlen(q.choices) > 10 then
      report(file, line, "%s has more than ten choices", what)
    elseif correct == 0 then
      report(file, line, "%s has no correct choice (mark one with correct = true)", what)
    end
    q.choices = choices
  end
  q.line, q.file = line, file
  return q
end

-- kernel_only: the problem's own code launches the kernel file (multigpu):
-- no launcher, no Python.
local function check_exercise(t, file, line, what, kernel_only)
  what = what or "exercise"
  local x, ok = check_fields(t, "exercise", what, file, line)
  if ok and kernel_only then
    if x.kernel == nil then
      report(file, line, "%s: missing required field 'kernel'", what)
      ok = false
    end
    for _, f in ipairs({ "launcher", "python" }) do
      if x[f] ~= nil then
        report(file, line, "%s: this lab's exercise is a kernel file alone, launched by the lab "
               .. "itself: leave out %s", what, quote(f))
      end
    end
  elseif ok and x.python ~= nil then
    if x.kernel ~= nil or x.launcher ~= nil then
      report(file, line, "%s: a Python exercise has only 'python' (the learner's .py file), no "
             .. "kernel or launcher", what)
    elseif not x.python:find("%.py$") then
      report(file, line, "%s: field 'python' must name a .py file, got %s", what, quote(x.python))
    end
  elseif ok then
    for _, f in ipairs({ "kernel", "launcher" }) do
      if x[f] == nil then
        report(file, line, "%s: missing required field %s (or 'python' for a Python exercise)",
               what, quote(f))
        ok = false
      end
    end
  end
  for _, f in ipairs({ "kernel", "launcher", "python" }) do
    if type(x[f]) == "string" and not relative_file(x[f]) then
      report(file, line, "%s: field %s must name a file inside the lab folder, got %s",
             what, quote(f), quote(x[f]))
    end
  end
  local hints = {}
  if x.hints ~= nil then
    for hi = 1, rawlen(x.hints) do
      local h = rawget(x.hints, hi)
      if type(h) ~= "string" then
        report(file, line, "%s: hint %d must be a string, got %s", what, hi, type(h))
      else
        hints[#hints + 1] = dedent(h)
      end
    end
  end
  x.hints = hints
  x.line, x.file = line, file
  return x, ok
end

-- A count in the engine's forms: 1048576, "2^20", "1<<20", each optionally
-- followed by "+k" or "-k" ("2^20+3").
local function is_count(s)
  s = s:gsub("%s*[%+%-]%s*%d+%s*$", "", 1)
  return s:find("^%s*%d+%s*$") or s:find("^%s*%d+%s*%^%s*%d+%s*$")
    or s:find("^%s*%d+%s*<<%s*%d+%s*$")
end

-- The line size entry v is written on (found again in the file's text),
-- else the line of the table around it.
local function entry_line(v, line)
  local text = type(v) == "string" and v or mtype(v) == "integer" and format("%d", v) or tostring(v)
  return size_line and size_line(text, line) or line
end

local function size_label(v, prob, what, file, line, i)
  local label
  if mtype(v) == "integer" and v > 0 then
    label = format("%d", v)
  elseif type(v) == "string" then
    label = v
  else
    report(file, entry_line(v, line), "%s: size %d must be a string such as %s, got %s", what, i,
           prob.form, type(v) == "number" and ("number " .. tostring(v)) or type(v))
    return nil
  end
  local parts, n = {}, 0
  for p in (label .. "x"):gmatch("([^xX]*)[xX]") do
    n = n + 1
    parts[n] = p
  end
  local dims_ok = false
  for _, d in ipairs(prob.dims) do dims_ok = dims_ok or d == n end
  local forms_ok = #label <= 47
  for _, p in ipairs(parts) do forms_ok = forms_ok and is_count(p) ~= nil end
  if not (dims_ok and forms_ok) then
    report(file, entry_line(v, line), "%s: size %s is not %s", what, quote(label), prob.form)
    return nil
  end
  return label
end

---------------------------------------------------------------------------
-- problems a lab declares (lua/problems.md)

local MAX_DIMS, MAX_ARGS = 4, 8
local MAX_ELEMS = 1 << 40                 -- elements of one buffer
local MAX_BYTES = 64 * (1 << 30)          -- buffers of one size
local LUA_REF_ELEMS = 1 << 22             -- a Lua reference's buffers, in all
local BUFFER_TYPES = { f32 = 4, f64 = 8, i32 = 4, u32 = 4, u8 = 1, bf16 = 2 }
local SCALAR_TYPES = { i64 = true, i32 = true, f32 = true, f64 = true }
local FILLS = { uniform = 2, normal = 2, integers = 2, zipf = 3, constant = 1 }

-- The value of a count written as 1048576, "2^20", "1<<20", optionally with
-- "+k" or "-k"; nil when it is not one.
local function count_value(v)
  if mtype(v) == "integer" then return v end
  if mtype(v) == "float" then
    if v == v // 1 and v >= 0 and v < 2^62 then return v // 1 end
    return nil
  end
  if type(v) ~= "string" then return nil end
  local body, sign, k = v:match("^%s*(.-)%s*([%+%-])%s*(%d+)%s*$")
  if body == nil then body = v end
  local a, b = body:match("^%s*(%d+)%s*%^%s*(%d+)%s*$")
  local r
  if a then
    a, b = tonumber(a), tonumber(b)
    if a == nil or b == nil or b > 62 then return nil end
    r = 1
    for _ = 1, b do
      r = r * a
      if r > (1 << 62) then return nil end
    end
  else
    a, b = body:match("^%s*(%d+)%s*<<%s*(%d+)%s*$")
    if a then
      a, b = tonumber(a), tonumber(b)
      if a == nil or b == nil or b > 62 or a > ((1 << 62) >> b) then return nil end
      r = a << b
    else
      a = body:match("^%s*(%d+)%s*$")
      r = a and mtype(tonumber(a)) == "integer" and tonumber(a) or nil
      if r == nil then return nil end
    end
  end
  if sign == "+" then r = r + tonumber(k) elseif sign == "-" then r = r - tonumber(k) end
  return mtype(r) == "integer" and r or nil
end

-- A number, a dim's name or a function of the size, as { num = }, { dim = }
-- or { fn = }; nil (and a report) when it is none of them.
local function check_expr(v, D, what, file, line)
  if type(v) == "number" then return { num = v } end
  if type(v) == "function" then return { fn = v } end
  if type(v) == "string" then
    for i, d in ipairs(D.dims) do
      if d == v then return { dim = i } end
    end
    local c = count_value(v)
    if c then return { num = c } end
    report(file, line, "%s: %s is neither a number nor one of the dims (%s)", what, quote(v),
           concat(D.dims, ", "))
    return nil
  end
  report(file, line, "%s must be a number, a dim's name or a function(size), got %s", what, type(v))
  return nil
end

-- The size table a problem's functions receive, and the value of an expr.
local function size_table(D, values, label)
  local s = { label = label }
  for i, d in ipairs(D.dims) do s[d] = values[i] end
  return s
end

local function expr_value(e, D, values, label)
  if e.num then return true, e.num end
  if e.dim then return true, values[e.dim] end
  return pcall(e.fn, size_table(D, values, label))
end

local function check_dims(t, D, what, file, line)
  local seen = {}
  if rawlen(t.dims) < 1 or rawlen(t.dims) > MAX_DIMS then
    report(file, line, "%s: dims must list 1 to %d names, got %d", what, MAX_DIMS, rawlen(t.dims))
  end
  for i = 1, rawlen(t.dims) do
    local d = rawget(t.dims, i)
    if type(d) ~= "string" or not d:find("^[%a_][%w_]*$") or #d > 31 then
      report(file, line, "%s: dim %d must be a name (letters, digits, '_'), got %s", what, i,
             type(d) == "string" and quote(d) or type(d))
    elseif seen[d] then
      report(file, line, "%s: dim %s is listed twice", what, quote(d))
    else
      seen[d] = true
      D.dims[#D.dims + 1] = d
      D.min[#D.dims], D.max[#D.dims] = 1, (1 << 31) - 1
    end
  end
  local lim = t.limits
  if lim == nil then return end
  local k = next(lim)
  while k ~= nil do
    local i
    for j, d in ipairs(D.dims) do if d == k then i = j end end
    local v = rawget(lim, k)
    if i == nil then
      report(file, line, "%s: limits names %s, which is not one of the dims (%s)", what,
             quote(tostring(k)), concat(D.dims, ", "))
    elseif type(v) ~= "table" or rawlen(v) ~= 2 then
      report(file, line, "%s: limits.%s must be { min, max }", what, k)
    else
      local lo, hi = count_value(rawget(v, 1)), count_value(rawget(v, 2))
      if lo == nil or hi == nil or lo < 1 or hi < lo then
        report(file, line, "%s: limits.%s must be { min, max } with 1 <= min <= max, each a "
               .. "count such as 1024 or \"2^28\"", what, k)
      else
        D.min[i], D.max[i] = lo, hi
      end
    end
    k = next(lim, k)
  end
end

local function check_fill(v, D, what, file, line)
  if type(v) == "function" then return { kind = "function", fn = v } end
  if type(v) ~= "table" or type(rawget(v, 1)) ~= "string" or FILLS[rawget(v, 1)] == nil then
    report(file, line, "%s: fill must be { \"uniform\", lo, hi }, { \"normal\", mean, sd }, "
           .. "{ \"integers\", lo, hi }, { \"zipf\", s, lo, hi }, { \"constant\", v } or a "
           .. "function(n, size)", what)
    return nil
  end
  local kind = rawget(v, 1)
  if rawlen(v) - 1 ~= FILLS[kind] then
    report(file, line, "%s: fill %s takes %d numbers, got %d", what, quote(kind), FILLS[kind],
           rawlen(v) - 1)
    return nil
  end
  local f = { kind = kind, p = {} }
  for i = 2, rawlen(v) do
    local e = check_expr(rawget(v, i), D, format("%s: fill %s's number %d", what, kind, i - 1),
                         file, line)
    if e == nil then return nil end
    f.p[#f.p + 1] = e
  end
  return f
end

local function check_judge(v, what, file, line)
  if v == "exact" then return { kind = "exact" } end
  if type(v) == "function" then return { kind = "function", fn = v } end
  if type(v) == "table" then
    local rel, abs = rawget(v, "rel"), rawget(v, "abs")
    local k = next(v)
    while k ~= nil do
      if k ~= "rel" and k ~= "abs" then
        report(file, line, "%s: output takes rel and abs, not %s", what, quote(tostring(k)))
        return nil
      end
      k = next(v, k)
    end
    if (rel ~= nil and not (type(rel) == "number" and rel > 0 and rel < 1))
        or (abs ~= nil and not (type(abs) == "number" and abs > 0)) or (rel == nil and abs == nil) then
      report(file, line, "%s: output { rel = ... } needs a relative tolerance between 0 and 1, "
             .. "{ abs = ... } a positive one", what)
      return nil
    end
    return { kind = rel and abs and "both" or rel and "rel" or "abs", rel = rel, abs = abs }
  end
  report(file, line, "%s: output must be \"exact\", { rel = ... }, { abs = ... } or a function, "
         .. "got %s", what, type(v) == "string" and quote(v) or type(v))
  return nil
end

local function check_arg(t, i, D, what, file, line)
  local name = rawget(t, "name")
  local l = type(name) == "string" and quoted_line and quoted_line(name, line, file, "name")
            or line
  local awhat = format("%s: arg %s", what, type(name) == "string" and quote(name) or tostring(i))
  local a, ok = check_fields(t, "arg", awhat, file, l)
  if not ok then return nil end
  a.line = l
  if not a.name:find("^[%a_][%w_]*$") or #a.name > 31 then
    report(file, l, "%s: name must be letters, digits and '_' (at most 31)", awhat)
    return nil
  end
  if (a.length == nil) == (a.value == nil) then
    report(file, l, "%s: give a buffer its length, or a scalar its value (one of them)", awhat)
    return nil
  end
  a.buffer = a.length ~= nil
  if a.buffer then
    if BUFFER_TYPES[a.type] == nil then
      report(file, l, "%s: a buffer's type is f32, f64, i32, u32, u8 or bf16, got %s", awhat,
             quote(a.type))
      return nil
    end
    a.length = check_expr(a.length, D, awhat .. ": length", file, l)
    if a.output ~= nil and a.fill ~= nil then
      report(file, l, "%s: an output has no fill (cudalab poisons it before every run)", awhat)
    elseif a.output ~= nil then
      a.judge = check_judge(a.output, awhat, file, l)
      a.output = a.judge ~= nil
    elseif a.fill == nil then
      report(file, l, "%s: an input buffer needs a fill (or mark it as an output)", awhat)
    else
      a.fill = check_fill(a.fill, D, awhat, file, l)
    end
  else
    if SCALAR_TYPES[a.type] == nil then
      report(file, l, "%s: a scalar's type is i64, i32, f32 or f64, got %s", awhat, quote(a.type))
      return nil
    end
    if a.fill ~= nil or a.output ~= nil then
      report(file, l, "%s: a scalar has a value, no fill or output", awhat)
    end
    a.value = check_expr(a.value, D, awhat .. ": value", file, l)
  end
  return a
end

local function check_reference(v, D, what, file, line)
  if v == "builtin" then
    if D.builtin == nil then report(file, line, "%s: reference \"builtin\" needs a builtin", what) end
    return { kind = "builtin" }
  elseif type(v) == "function" then
    return { kind = "function", fn = v }
  elseif type(v) == "table" then
    local r = { kind = "kernel", file = rawget(v, "file"), launcher = rawget(v, "launcher"),
                f64 = rawget(v, "f64") == true, check = rawget(v, "check") }
    local k = next(v)
    while k ~= nil do
      if k ~= "file" and k ~= "launcher" and k ~= "f64" and k ~= "check" then
        report(file, line, "%s: reference takes file, launcher, f64 and check, not %s", what,
               quote(tostring(k)))
      end
      k = next(v, k)
    end
    for _, f in ipairs({ "file", "launcher" }) do
      if type(r[f]) ~= "string" or not relative_file(r[f]) then
        report(file, line, "%s: reference.%s must name a file inside the lab folder", what, f)
      end
    end
    if r.check ~= nil and type(r.check) ~= "function" then
      report(file, line, "%s: reference.check must be a function(a, size)", what)
    end
    return r
  end
  report(file, line, "%s: reference must be \"builtin\", a function(a, size) or "
         .. "{ file = ..., launcher = ... }, got %s", what, type(v))
  return nil
end

-- Checks a problem { } and returns what the rest of the checks need of a
-- problem (dims, form, library), with the normalised declaration in
-- .declared.
local DECLARED = {}   -- name -> what check_problem returned, for this lab
local SHIPPED = {}    -- name -> the problem { } of a lua/problems/<name>.lua

local check_problem

-- A problem by name: one the lab declared, a built-in one, or a shipped
-- declared one (checked the first time a lab names it).
local function problem_of(name)
  if DECLARED[name] or PROBLEMS[name] then return DECLARED[name] or PROBLEMS[name] end
  local t = SHIPPED[name]
  if t then return check_problem(t, name) end
  return nil
end

check_problem = function(t, default_name, file, line)
  local m = made[t]
  if m then file, line = m.file, m.line end
  local what = "problem"
  local P, ok = check_fields(t, "problem", what, file, line)
  local D = { name = P.name or default_name, dims = {}, min = {}, max = {}, args = {},
              file = file, line = line, bound = P.bound, reads_only = P.reads_only,
              valid = P.valid, hints = {} }
  if P.hints ~= nil then
    local k = next(P.hints)
    while k ~= nil do
      local v = rawget(P.hints, k)
      if (k ~= "buffers" and k ~= "wrong" and k ~= "nan") or type(v) ~= "string" then
        report(file, line, "%s: hints takes buffers, wrong and nan, each a string (what the "
               .. "diagnosis of a learner's result says), not %s", what, quote(tostring(k)))
      else
        D.hints[k] = dedent(v)
      end
      k = next(P.hints, k)
    end
  end
  if not ok or type(P.dims) ~= "table" or type(P.args) ~= "table" then return nil end
  if type(D.name) ~= "string" or not D.name:find("^[%a_][%w_]*$") or #D.name > 63 then
    report(file, line, "%s: name %s must be letters, digits and '_'", what, quote(tostring(D.name)))
  end
  check_dims(P, D, what, file, line)
  if rawlen(P.args) < 1 or rawlen(P.args) > MAX_ARGS then
    report(file, line, "%s: args must list 1 to %d arguments, got %d", what, MAX_ARGS,
           rawlen(P.args))
  end
  local seen, outputs = {}, 0
  for i = 1, rawlen(P.args) do
    local it = rawget(P.args, i)
    if type(it) ~= "table" then
      report(file, line, "%s: args entry %d must be a table { name = ..., type = ... }", what, i)
    else
      local a = check_arg(it, i, D, what, file, line)
      if a and seen[a.name] then
        report(file, a.line, "%s: two args are called %s", what, quote(a.name))
      elseif a then
        seen[a.name] = true
        D.args[#D.args + 1] = a
        if a.output then outputs = outputs + 1 end
      end
    end
  end
  if outputs == 0 and rawlen(P.args) > 0 then
    report(file, line, "%s: no arg is an output (give one output = \"exact\" or { rel = ... })", what)
  end
  if P.builtin ~= nil then
    local b = { name = rawget(P.builtin, 1), roles = {} }
    if type(b.name) ~= "string" then
      report(file, line, "%s: builtin must be { \"<name>\", <role> = \"<arg>\", ... }", what)
    else
      local k = next(P.builtin)
      while k ~= nil do
        local v = rawget(P.builtin, k)
        if k ~= 1 then
          if type(k) ~= "string" or type(v) ~= "string" or not seen[v] then
            report(file, line, "%s: builtin role %s must name one of the args, got %s", what,
                   quote(tostring(k)), quote(tostring(v)))
          else
            b.roles[#b.roles + 1] = { role = k, arg = v }
          end
        end
        k = next(P.builtin, k)
      end
      sort(b.roles, function(x, y) return x.role < y.role end)
      D.builtin = b
    end
  end
  D.reference = check_reference(P.reference, D, what, file, line)
  if P.cpu ~= nil and P.cpu ~= "builtin" then
    report(file, line, "%s: cpu must be \"builtin\" (a builtin's CPU baseline), got %s", what,
           quote(P.cpu))
  elseif P.cpu ~= nil and D.builtin == nil then
    report(file, line, "%s: cpu \"builtin\" needs a builtin", what)
  end
  D.cpu = P.cpu ~= nil
  if D.cpu and D.reference and D.reference.kind ~= "builtin" then
    report(file, line, "%s: cpu \"builtin\" needs reference \"builtin\" (the CPU rows are "
           .. "checked against it, before any GPU work)", what)
  end
  if P.library == "builtin" and D.builtin == nil then
    report(file, line, "%s: library \"builtin\" needs a builtin", what)
  end
  D.library = P.library
  for _, f in ipairs({ "bytes", "flops" }) do
    if P[f] ~= nil then D[f] = check_expr(P[f], D, what .. ": " .. f, file, line) end
  end
  if P.bound ~= "memory" and P.bound ~= "compute" then
    report(file, line, "%s: bound must be \"memory\" or \"compute\", got %s", what, quote(P.bound))
  elseif P.bound == "compute" and D.flops == nil then
    report(file, line, "%s: bound \"compute\" needs flops", what)
  end
  local form
  if #D.dims == 1 then
    form = format("a count of %s such as 1048576 or \"2^20\"", D.dims[1])
  else
    form = format("\"%s\" such as \"%s\"", concat(D.dims, "x"),
                  concat({ "1024", "512", "256", "128" }, "x", 1, #D.dims))
  end
  local prob = { dims = { #D.dims }, form = form, library = D.library, declared = D }
  if DECLARED[D.name] or PROBLEMS[D.name] then
    report(file, line, "%s: name %s is taken (by another problem of the lab or a shipped one)",
           what, quote(D.name))
  else
    DECLARED[D.name] = prob
  end
  return prob
end

-- The dims of size label at D's limits; nil and why when outside them.
local function declared_dims(D, label)
  local values, i = {}, 0
  for part in (label .. "x"):gmatch("([^xX]*)[xX]") do
    i = i + 1
    local v = count_value(part)
    if v == nil then return nil, format("%s is not a count", quote(part)) end
    if v < D.min[i] or v > D.max[i] then
      return nil, format("%s = %d is outside its limits [%d, %d]", D.dims[i], v, D.min[i], D.max[i])
    end
    values[i] = v
  end
  if i ~= #D.dims then return nil, format("it has %d numbers, the problem %d", i, #D.dims) end
  if D.valid then
    local ok, good, why = pcall(D.valid, size_table(D, values, label))
    if not ok then return nil, "its valid function failed: " .. tostring(good) end
    if not good then return nil, tostring(why or "the problem's valid function refuses it") end
  end
  return values
end

-- Every size of D the lab runs: within the limits, and buffers of sane
-- lengths (whole, positive, at most 2^40 elements, 64 GiB in all; 2^22 in
-- all under a Lua reference).
local function check_problem_sizes(D, sizes, what, file, line)
  for _, label in ipairs(sizes) do
    local sl = entry_line(label, line)
    local values, why = declared_dims(D, label)
    if values == nil then
      report(file, sl, "%s: size %s: %s", what, quote(label), why)
    else
      local bytes, elems = 0, 0
      for _, a in ipairs(D.args) do
        local e = a.buffer and a.length or a.value
        local ok, v = true, nil
        if e then ok, v = expr_value(e, D, values, label) end
        if not ok then
          report(D.file, a.line, "%s: arg %s at size %s: %s", what, quote(a.name), label, tostring(v))
        elseif e and a.buffer and not (mtype(v) == "integer" or (type(v) == "number" and v == v // 1)) then
          report(D.file, a.line, "%s: arg %s at size %s: length %s is not a whole number", what,
                 quote(a.name), label, tostring(v))
        elseif e and a.buffer and (v < 1 or v > MAX_ELEMS) then
          report(D.file, a.line, "%s: arg %s at size %s: length %s must be from 1 to 2^40", what,
                 quote(a.name), label, tostring(v))
        elseif e and a.buffer then
          bytes = bytes + v * BUFFER_TYPES[a.type]
          elems = elems + v
        elseif e and type(v) ~= "number" then
          report(D.file, a.line, "%s: arg %s at size %s: value must be a number, got %s", what,
                 quote(a.name), label, type(v))
        end
      end
      -- a size too big for the problem is the size's fault: its line
      if bytes > MAX_BYTES then
        report(file, sl, "%s: at size %s the buffers take %.1f GiB: one size may take at "
               .. "most 64 GiB", what, label, bytes / (1 << 30))
      end
      if D.reference and D.reference.kind == "function" and elems > LUA_REF_ELEMS then
        report(file, sl, "%s: at size %s the buffers hold %d elements: a Lua reference runs "
               .. "only where they hold at most 2^22 (use a reference kernel, or smaller sizes)",
               what, label, elems)
      end
    end
  end
end

-- The problem a listed exercise solves, and its sizes: its own, or the
-- lab's when it solves the lab's problem and names none.
local function exercise_problem(x, L, what, f, l, opts)
  if type(x.problem) == "table" then
    local p = check_problem(x.problem, x.id, f, l)
    x.problem = p and p.declared.name or nil
    if p == nil then return nil end
  end
  local solves = x.problem or L.problem
  local prob = solves and problem_of(solves)
  if solves == nil or (x.problem == nil and (prob == nil or prob.dims == nil)) then
    report(f, l, "%s needs a problem (the lab's problem %s is a set of experiments)", what,
           quote(L.problem or "none"))
    return nil
  elseif prob == nil then
    report(f, l, "%s: unknown problem %s (known: %s)", what, quote(solves), PROBLEM_NAMES)
    return nil
  elseif prob.dims == nil then
    report(f, l, "%s: problem %s is a set of experiments, not a problem an exercise solves",
           what, quote(solves))
    return nil
  end
  x.problem = solves
  if x.sizes == nil and solves == L.problem then
    x.sizes = L.sizes
  elseif x.sizes == nil or rawlen(x.sizes) == 0 then
    report(f, l, "%s needs sizes (%s)", what, prob.form)
    x.sizes = {}
  else
    local xs = {}
    for i = 1, rawlen(x.sizes) do
      local sz = size_label(rawget(x.sizes, i), prob, what, f, l, i)
      if sz then xs[#xs + 1] = sz end
    end
    if #xs > opts.max_sizes then
      report(f, l, "%s: at most %d sizes, got %d", what, opts.max_sizes, #xs)
    end
    x.sizes = xs
  end
  if prob.declared then
    check_problem_sizes(prob.declared, x.sizes, what, f, l)
    x.library = x.library or prob.declared.library
  elseif x.library ~= nil and x.library ~= prob.library then
    report(f, l, "%s: library %s does not solve %s%s", what, quote(x.library), quote(solves),
           prob.library and (" (use " .. quote(prob.library) .. ")") or " (it has none)")
  end
  return prob
end

-- The lab's exercises: its own one (from `exercise`, id "") first, then
-- each of `exercises`, which need ids.
local function check_exercises(L, t, prob, what, file, line, opts)
  local out = {}
  if L.exercise ~= nil then out[1] = L.exercise end
  local listed = each_item(rawget(t, "exercises"), "exercise", what, file, line, function(it, i, f, l)
    local xwhat = item_what("exercise", it, i)
    local x, ok = check_exercise(it, f, l, xwhat)
    if ok and x.id == nil then
      report(f, l, "%s: missing required field 'id' (a listed exercise needs one)", xwhat)
    elseif ok then
      check_id(x.id, xwhat, f, l)
    end
    local xprob = ok and exercise_problem(x, L, xwhat, f, l, opts)
    x.variants = each_item(x.variants, "variant", xwhat, f, l, function(v, vi, vf, vl)
      return check_variant(v, vi, vf, vl, xprob or {})
    end)
    for _, v in ipairs(x.variants) do
      for _, lv in ipairs(L.variants) do
        if v.id == lv.id then
          report(v.file, v.line, "%s: variant %s has the id of one of the lab's variants", xwhat,
                 quote(v.id))
        end
      end
    end
    no_duplicates(x.variants, "variant")
    if #x.variants > opts.max_variants then
      report(f, l, "%s: at most %d variants, got %d", xwhat, opts.max_variants, #x.variants)
    end
    x.title = x.title or x.id
    return x
  end)
  if #listed > 0 and L.problem == nil then
    report(file, line, "%s: exercises need a problem", what)
  end
  no_duplicates(listed, "exercise")
  for _, x in ipairs(listed) do out[#out + 1] = x end
  return out
end

-- Library rows a check may compare with, whatever the lab's own library.
local LIBRARY_ROWS = { cub = true, cub_scan = true, cublas = true, cublas_tf32 = true,
                       cublas_bf16 = true, copy = true }

-- Each row milestone m needs is one the rows it is judged on can hold: a
-- rung of its exercise (the lab's, for the lab's own), the CPU or a library.
local function check_needs(L, m, x)
  local listed = x ~= nil and x.id ~= nil and x.id ~= ""
  local rungs = listed and x.variants or L.variants
  local rows, known = {}, {}
  for _, v in ipairs(type(rungs) == "table" and rungs or {}) do
    if type(v) == "table" and type(v.id) == "string" and not known[v.id] then
      known[v.id] = true
      rows[#rows + 1] = v.id
    end
  end
  -- the CPU rows, unless the problem is declared without them
  local pname = listed and x.problem or L.problem
  local prob = type(pname) == "string" and problem_of(pname) or nil
  if not (prob and prob.declared and not prob.declared.cpu) then
    known.cpu, known.cpu_mt = true, true
    rows[#rows + 1] = "cpu"
    rows[#rows + 1] = "cpu_mt"
  end
  local lib = listed and x.library or L.library
  if type(lib) == "string" and not known[lib] and lib ~= "builtin" then
    known[lib] = true
    rows[#rows + 1] = lib
  end
  for _, id in ipairs(m.needs) do
    local library_row = LIBRARY_ROWS[id] and (id == "copy" or lib == "builtin" or
                                             not (prob and prob.declared))
    if not known[id] and not library_row then
      report(m.file, m.line, "milestone %s compares with row %s, which %s does not measure "
             .. "(its rows: %s)", quote(m.id), quote(id),
             listed and ("exercise " .. quote(x.id)) or "the lab", concat(rows, ", "))
      return
    end
  end
end

-- Each milestone's exercise exists, and its size is one that exercise runs at.
local function check_milestone_places(L)
  local by_id = {}
  for _, x in ipairs(L.exercises) do
    if type(x.id) == "string" then by_id[x.id] = x end
  end
  local lab_prob = type(L.problem) == "string" and problem_of(L.problem) or nil
  for _, m in ipairs(L.milestones) do
    -- a problem of experiments may name the sizes its rows are measured at
    local sizes = (#L.sizes == 0 and lab_prob and lab_prob.sizes) or L.sizes
    local judged = by_id[""]
    if type(m.exercise) == "string" then
      judged = m.exercise ~= "" and by_id[m.exercise] or nil
      local x = by_id[m.exercise]
      if x == nil or m.exercise == "" then
        local ids = {}
        for _, y in ipairs(L.exercises) do
          if type(y.id) == "string" and y.id ~= "" then ids[#ids + 1] = y.id end
        end
        report(m.file, m.line, "milestone %s names exercise %s, but the lab has no such exercise%s",
               quote(m.id), quote(m.exercise),
               #ids > 0 and (" (it has " .. concat(ids, ", ") .. ")") or "")
        sizes = nil
      else
        sizes = x.sizes
      end
    end
    if m.needs ~= nil and (judged ~= nil or m.exercise == nil) then
      check_needs(L, m, judged)
    end
    if type(m.size) == "string" and sizes ~= nil then
      local found = false
      for _, z in ipairs(sizes) do found = found or z == m.size end
      if not found then
        report(m.file, m.line, "milestone %s: size %s is not one of the sizes it is judged at (%s)",
               quote(m.id), quote(m.size), #sizes > 0 and concat(sizes, ", ") or "none")
      end
    end
  end
end

local function validate_lab(t, file, line, opts)
  local id = rawget(t, "id")
  local what = type(id) == "string" and format("lab %s", quote(id)) or "lab"
  local L = check_fields(t, "lab", what, file, line)
  if type(L.id) == "string" then check_id(L.id, what, file, line) end
  if type(L.id) == "string" and opts.folder and L.id ~= opts.folder then
    report(file, line, "lab %s is in folder %s: a lab's id must match its folder name",
           quote(L.id), quote(opts.folder))
  end
  if L.time_limit and L.time_limit <= 0 then
    report(file, line, "%s: time_limit must be more than 0 seconds", what)
  end

  local prob
  if type(L.problem) == "table" then
    prob = check_problem(L.problem, type(L.id) == "string" and L.id or "problem", file, line)
    L.problem = prob and prob.declared.name or nil
    if prob then L.library = L.library or prob.declared.library end
  elseif L.problem ~= nil then
    prob = problem_of(L.problem)
    if prob and prob.declared then L.library = L.library or prob.declared.library end
    if not prob then
      report(file, line, "%s: unknown problem %s (known: %s, or a problem { ... } of the lab's "
             .. "own: lua/problems.md)", what, quote(L.problem), PROBLEM_NAMES)
    end
  end
  if L.library ~= nil and not (prob and prob.declared) then
    if L.problem == nil then
      report(file, line, "%s: a library baseline needs a problem", what)
    elseif prob and prob.library == nil then
      report(file, line, "%s: problem %s has no library baseline", what, quote(L.problem))
    elseif prob and L.library ~= prob.library then
      report(file, line, "%s: library %s does not solve %s (use %s)", what, quote(L.library),
             quote(L.problem), quote(prob.library))
    end
  end

  local sizes = {}
  if L.sizes ~= nil then
    if L.problem == nil then
      if rawlen(L.sizes) > 0 then report(file, line, "%s: sizes need a problem", what) end
    elseif prob and prob.dims == nil then
      if rawlen(L.sizes) > 0 then
        report(file, line, "%s: problem %s takes no sizes", what, quote(L.problem))
      end
    elseif prob then
      for i = 1, rawlen(L.sizes) do
        local s = size_label(rawget(L.sizes, i), prob, what, file, line, i)
        if s then sizes[#sizes + 1] = s end
      end
    end
  end
  if prob and prob.dims and (rawget(t, "sizes") == nil or (L.sizes ~= nil and rawlen(L.sizes) == 0)) then
    report(file, line, "%s: problem %s needs at least one size (%s)", what, quote(L.problem), prob.form)
  end
  if #sizes > opts.max_sizes then
    report(file, line, "%s: at most %d sizes, got %d", what, opts.max_sizes, #sizes)
  end
  L.sizes = sizes
  if prob and prob.declared then check_problem_sizes(prob.declared, sizes, what, file, line) end

  local given_steps = L.steps
  L.steps = each_item(L.steps, "step", what, file, line, check_step)
  if given_steps ~= nil and rawlen(given_steps) == 0 then
    report(file, line, "%s: needs at least one step", what)
  end
  L.variants = each_item(L.variants, "variant", what, file, line, function(it, i, f, l)
    return check_variant(it, i, f, l, prob)
  end)
  if #L.variants > 0 and L.problem == nil then
    report(file, line, "%s: variants need a problem", what)
  end
  if #L.variants > opts.max_variants then
    report(file, line, "%s: at most %d variants, got %d", what, opts.max_variants, #L.variants)
  end
  no_duplicates(L.variants, "variant")
  L.quizzes = each_item(L.quizzes, "quiz", what, file, line, check_quiz)
  local quiz_ids = no_duplicates(L.quizzes, "quiz")
  L.milestones = each_item(L.milestones, "milestone", what, file, line, check_milestone)
  no_duplicates(L.milestones, "milestone")
  for _, m in ipairs(L.milestones) do
    if type(m.quiz) == "string" and not quiz_ids[m.quiz] then
      report(m.file, m.line, "milestone %s names quiz %s, but the lab has no such quiz",
             quote(m.id), quote(m.quiz))
    end
  end

  if L.exercise ~= nil then
    local mk, f, l = origin(L.exercise, file, line)
    if mk ~= nil and mk ~= "exercise" then
      report(f, l, "%s: field 'exercise' is a %s, not an exercise", what, mk)
      L.exercise = nil
    else
      local x = check_exercise(L.exercise, f, l, nil, prob and prob.kernel_only)
      L.exercise = x
      for _, k in ipairs({ "id", "library", "variants" }) do
        if x[k] ~= nil then
          report(f, l, "exercise: the lab's own exercise takes no %s (list exercises that need "
                 .. "one in 'exercises')", quote(k))
        end
      end
      if L.problem == nil then
        report(f, l, "%s: an exercise needs a problem", what)
      elseif prob and prob.dims == nil and prob.exercise == nil and not prob.kernel_only then
        report(f, l, "%s: problem %s has no exercise", what, quote(L.problem))
      elseif prob then
        local solves = prob.exercise or L.problem
        if x.problem ~= nil and x.problem ~= solves then
          report(f, l, "exercise: the exercise of a %s lab solves %s, not %s", quote(L.problem),
                 quote(solves), quote(x.problem))
        end
        x.problem = solves
        if prob.exercise == nil then
          if x.sizes ~= nil then
            report(f, l, "exercise: sizes belong to the lab (the exercise runs at the lab's sizes)")
          end
        elseif x.sizes == nil or rawlen(x.sizes) == 0 then
          report(f, l, "exercise: a %s lab's exercise needs sizes (%s)", quote(L.problem),
                 PROBLEMS[solves].form)
        else
          -- the lab runs its exercise at these sizes
          local xs = {}
          for i = 1, rawlen(x.sizes) do
            local sz = size_label(rawget(x.sizes, i), problem_of(solves), "exercise", f, l, i)
            if sz then xs[#xs + 1] = sz end
          end
          if #xs > opts.max_sizes then
            report(f, l, "exercise: at most %d sizes, got %d", opts.max_sizes, #xs)
          end
          L.sizes = xs
        end
        x.sizes = nil
      end
    end
  end
  if L.exercise ~= nil then
    L.exercise.id, L.exercise.sizes = "", L.sizes
  end
  L.exercises = check_exercises(L, t, prob, what, file, line, opts)
  L.exercise = nil
  check_milestone_places(L)
  L.decls = {}
  for _, p in pairs(DECLARED) do L.decls[#L.decls + 1] = p.declared end
  sort(L.decls, function(a, b) return a.line < b.line end)
  L.line, L.file = line, file
  return L
end

-- result: what the lab file returned.  opts: path (the lab file), folder
-- (expected id, or nil), max_sizes, max_variants, size_line (see above).
-- Returns the normalised lab (nil when anything is wrong) and the problems.
local function finish(result, opts)
  local L
  size_line = opts.size_line
  quoted_line = opts.quoted_line
  local m = type(result) == "table" and made[result] or nil
  if result == nil then
    report(opts.path, 0, "the file must end with `return lab { ... }`")
  elseif m == nil or m.kind ~= "lab" then
    report(opts.path, 0, "the file must end with `return lab { ... }` (it returned %s)",
           m and ("a " .. m.kind) or ("a " .. type(result)))
  else
    L = validate_lab(result, m.file, m.line, opts)
  end
  if #problems > 0 then return nil, problems end
  return L, problems
end

-- A problem shipped in lua/problems/<name>.lua (t, made by problem { }):
-- labs may name it as they name a built-in one.
local function shipped(t, name)
  if made[t] == nil or made[t].kind ~= "problem" then
    report(name, 0, "a file of lua/problems/ must return problem { ... }")
    return
  end
  SHIPPED[name] = t
end

-- A shipped problem on its own, for the worker (no lab around it): its
-- normalised declaration, or nil and the problems.
local function finish_problem(name)
  local p = problem_of(name)
  if #problems > 0 or p == nil or p.declared == nil then
    if p == nil then report(name, 0, "no problem called %s", quote(name)) end
    return nil, problems
  end
  return { decls = { p.declared } }, problems
end

return api, { finish = finish, problems = function() return problems end, shipped = shipped,
              finish_problem = finish_problem }

-- expect: unexpected symbol near <eof>
-- line: 6
return lab {
  id = "syntax_error",
  title = "Unclosed",

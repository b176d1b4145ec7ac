-- expect: 'package' is not available in lab files
-- line: 3
package.loadlib("libc.so.6", "system")

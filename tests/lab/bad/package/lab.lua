-- expect: attempt to index a nil value (global 'package')
-- line: 3
package.loadlib("libc.so.6", "system")

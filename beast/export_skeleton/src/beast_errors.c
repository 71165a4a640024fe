/* beast_errors.c: the thread-local message behind beast_last_error(), so
 * concurrent callers each read the reason for their own failure. */
#include <stdarg.h>
#include <stdio.h>

#include "beast_runtime.h"

static _Thread_local char beast_error_text[1024];

beast_status beast_fail(beast_status status, const char* format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(beast_error_text, sizeof beast_error_text, format, args);
  va_end(args);
  return status;
}

void beast_clear_error(void) { beast_error_text[0] = '\0'; }

const char* beast_last_error(void) { return beast_error_text; }

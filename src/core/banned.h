/* banned.h: functions that overflow buffers or hide errors; use strbuf and
 * parse_* from util.h instead. Included by every llmprof source file. */
#ifndef LLMPROF_BANNED_H
#define LLMPROF_BANNED_H

#define BANNED(func) sorry_##func##_is_banned_in_llmprof

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef strtok
#define strtok(x, y) BANNED(strtok)
#undef atoi
#define atoi(x) BANNED(atoi)
#undef atof
#define atof(x) BANNED(atof)
#undef gmtime
#define gmtime(x) BANNED(gmtime)
#undef localtime
#define localtime(x) BANNED(localtime)

#endif

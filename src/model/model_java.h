/* SPDX-License-Identifier: MIT
 *
 * model_java.h — Java methods' names and sources as Java programmers write
 * them (model_java_names.c), for the model and the views.
 */
#ifndef TALLY_MODEL_JAVA_H
#define TALLY_MODEL_JAVA_H

#include <stdbool.h>
#include <stddef.h>

/* "pkg.Class.method(int, java.lang.String[])" from the JVM's class
 * signature ("Lpkg/Class;"), method name and descriptor ("(I[Ljava/lang/
 * String;)V") into buf (len bytes, always NUL-terminated); its length. */
size_t model_java_name(const char *klass, const char *method, const char *sig, char *buf, size_t len);

/* The source's path relative to a source root, "pkg/Class.java", from the
 * class signature and its SourceFile name; 0 (buf "") if there is none. */
size_t model_java_source_path(const char *klass, const char *src, char *buf, size_t len);

#endif

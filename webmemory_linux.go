//go:build linux && cgo

package main

/*
#cgo !webkit2_41 pkg-config: webkit2gtk-4.0
#cgo webkit2_41 pkg-config: webkit2gtk-4.1
#include <webkit2/webkit2.h>
#include <string.h>

static GObject *(*jc_parent_constructor)(GType, guint, GObjectConstructParam *);
static WebKitMemoryPressureSettings *jc_memory_settings;
static int jc_memory_settings_applied;

// jc_context_constructor runs in place of WebKitWebContext's constructor:
// it passes the construct-only "memory-pressure-settings" property that
// webkit_web_context_get_default() leaves unset, then chains up.
static GObject *jc_context_constructor(GType type, guint n, GObjectConstructParam *params) {
	GObjectConstructParam *copy = g_new(GObjectConstructParam, n);
	GValue value = G_VALUE_INIT;
	for (guint i = 0; i < n; i++) {
		copy[i] = params[i];
		if (strcmp(params[i].pspec->name, "memory-pressure-settings") == 0 && g_value_get_boxed(params[i].value) == NULL) {
			g_value_init(&value, params[i].pspec->value_type);
			g_value_set_boxed(&value, jc_memory_settings);
			copy[i].value = &value;
			jc_memory_settings_applied++;
		}
	}
	GObject *obj = jc_parent_constructor(type, n, copy);
	if (G_IS_VALUE(&value))
		g_value_unset(&value);
	g_free(copy);
	return obj;
}

// jc_set_web_memory_pressure makes every WebKitWebContext created after it
// (Wails' window uses the default one) start its web processes with these
// memory-pressure settings. 0 when the property is not there.
static int jc_set_web_memory_pressure(guint limit_mb, double conservative, double strict, double poll_s) {
	GObjectClass *klass = G_OBJECT_CLASS(g_type_class_ref(WEBKIT_TYPE_WEB_CONTEXT));
	if (g_object_class_find_property(klass, "memory-pressure-settings") == NULL)
		return 0;
	WebKitMemoryPressureSettings *s = webkit_memory_pressure_settings_new();
	webkit_memory_pressure_settings_set_memory_limit(s, limit_mb);
	// Each threshold is checked against the other's current value: set
	// them in the order that keeps conservative < strict at every step.
	if (conservative < webkit_memory_pressure_settings_get_strict_threshold(s)) {
		webkit_memory_pressure_settings_set_conservative_threshold(s, conservative);
		webkit_memory_pressure_settings_set_strict_threshold(s, strict);
	} else {
		webkit_memory_pressure_settings_set_strict_threshold(s, strict);
		webkit_memory_pressure_settings_set_conservative_threshold(s, conservative);
	}
	webkit_memory_pressure_settings_set_poll_interval(s, poll_s);
	if (jc_memory_settings != NULL)
		webkit_memory_pressure_settings_free(jc_memory_settings);
	jc_memory_settings = s;
	if (klass->constructor != jc_context_constructor) {
		jc_parent_constructor = klass->constructor;
		klass->constructor = jc_context_constructor;
	}
	return 1;
}

static int jc_memory_settings_applied_count(void) { return jc_memory_settings_applied; }

static void jc_memory_settings_get(guint *limit, double *conservative, double *strict, double *poll) {
	*limit = webkit_memory_pressure_settings_get_memory_limit(jc_memory_settings);
	*conservative = webkit_memory_pressure_settings_get_conservative_threshold(jc_memory_settings);
	*strict = webkit_memory_pressure_settings_get_strict_threshold(jc_memory_settings);
	*poll = webkit_memory_pressure_settings_get_poll_interval(jc_memory_settings);
}

// jc_new_web_context creates a WebKitWebContext as webkit_web_context_get_default does (for tests).
// 0 when GTK has no display.
static int jc_new_web_context(void) {
	if (!gtk_init_check(NULL, NULL))
		return 0;
	GObject *c = g_object_new(WEBKIT_TYPE_WEB_CONTEXT, NULL);
	g_object_unref(c);
	return 1;
}
*/
import "C"

import "time"

// setWebMemoryPressure applies p to the web processes of the window
// created after it; false when this WebKitGTK has no such setting.
func setWebMemoryPressure(p webMemoryPressure) bool {
	return C.jc_set_web_memory_pressure(C.guint(p.LimitMB), C.double(p.Conservative), C.double(p.Strict), C.double(p.Poll.Seconds())) == 1
}

// webContextsGivenMemoryPressure counts the web contexts created with the
// settings of setWebMemoryPressure.
func webContextsGivenMemoryPressure() int { return int(C.jc_memory_settings_applied_count()) }

// newWebContext creates and drops a WebKitWebContext the way WebKit
// creates its default one; false when GTK has no display.
func newWebContext() bool { return C.jc_new_web_context() == 1 }

// webMemoryPressureSet reads back the settings setWebMemoryPressure made.
func webMemoryPressureSet() webMemoryPressure {
	var limit C.guint
	var cons, strict, poll C.double
	C.jc_memory_settings_get(&limit, &cons, &strict, &poll)
	return webMemoryPressure{LimitMB: uint(limit), Conservative: float64(cons), Strict: float64(strict), Poll: time.Duration(float64(poll) * float64(time.Second))}
}

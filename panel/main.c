// SPDX-License-Identifier: MIT
/* uledsd-panel: command line, style and the one window. */
#include <glib-unix.h>
#include <gtk/gtk.h>
#include <signal.h>
#include <stdio.h>

#include "panel-client.h"
#include "panel-window.h"

static struct {
	gboolean compact, kiosk, read_only, session, system, debug_geometry, version;
	int lamp_size, columns;
	char *address, *filter;
} arg;

#define LAMP_SIZE_MIN 16
#define LAMP_SIZE_MAX 512

static const GOptionEntry options[] = {
    {"compact", 'c', 0, G_OPTION_ARG_NONE, &arg.compact, "One row of small lamps", NULL},
    {"kiosk", 'k', 0, G_OPTION_ARG_NONE, &arg.kiosk, "Fullscreen, no decorations", NULL},
    {"read-only", 'r', 0, G_OPTION_ARG_NONE, &arg.read_only,
     "Show the LEDs, change nothing (no clicks, slider or trigger menu)", NULL},
    {"lamp-size", 's', 0, G_OPTION_ARG_INT, &arg.lamp_size,
     "Lamps of PIXELS (16-512; default 100, --compact 34, --kiosk 168)", "PIXELS"},
    {"columns", 'n', 0, G_OPTION_ARG_INT, &arg.columns, "At most N lamps a row", "N"},
    {"filter", 'f', 0, G_OPTION_ARG_STRING, &arg.filter, "Show only LEDs matching GLOB", "GLOB"},
    {"system", 0, 0, G_OPTION_ARG_NONE, &arg.system, "Talk to uledsd on the system bus (default)",
     NULL},
    {"session", 0, 0, G_OPTION_ARG_NONE, &arg.session, "Talk to uledsd on the session bus", NULL},
    {"address", 0, 0, G_OPTION_ARG_STRING, &arg.address, "Talk to uledsd on the bus at ADDRESS",
     "ADDRESS"},
    {"debug-geometry", 0, 0, G_OPTION_ARG_NONE, &arg.debug_geometry,
     "Print where each lamp is drawn after each frame that changed (for tests)", NULL},
    {"version", 0, 0, G_OPTION_ARG_NONE, &arg.version, "Print the version and exit", NULL},
    {NULL}};

static int handle_local_options(GApplication *app, GVariantDict *dict, gpointer user_data)
{
	if (arg.version) {
		printf("uledsd-panel %s\n", ULEDSD_PANEL_VERSION);
		return 0;
	}
	if (arg.compact && arg.kiosk) {
		fprintf(stderr,
			"uledsd-panel: --compact and --kiosk exclude each other; pick one.\n");
		return 2;
	}
	if (arg.lamp_size && (arg.lamp_size < LAMP_SIZE_MIN || arg.lamp_size > LAMP_SIZE_MAX)) {
		fprintf(stderr, "uledsd-panel: --lamp-size takes %d to %d pixels, not %d.\n",
			LAMP_SIZE_MIN, LAMP_SIZE_MAX, arg.lamp_size);
		return 2;
	}
	if (arg.columns < 0 || (arg.columns && arg.compact)) {
		fprintf(stderr, arg.compact ? "uledsd-panel: --compact is one row: --columns does "
					      "not apply.\n"
					    : "uledsd-panel: --columns takes a positive number.\n");
		return 2;
	}
	if (arg.session + arg.system + (arg.address != NULL) > 1) {
		fprintf(stderr, "uledsd-panel: --system, --session and --address exclude each "
				"other; pick one.\n");
		return 2;
	}
	return -1; /* go on */
}

static void startup(GApplication *app, gpointer user_data)
{
	g_autoptr(GtkCssProvider) css = gtk_css_provider_new();

	/* A lamp glows best in the dark: the panel is dark whatever the desktop's theme. */
	g_object_set(gtk_settings_get_default(), "gtk-application-prefer-dark-theme", TRUE, NULL);
	gtk_css_provider_load_from_resource(css, "/io/uledsd/Panel/style.css");
	gtk_style_context_add_provider_for_display(gdk_display_get_default(),
						   GTK_STYLE_PROVIDER(css),
						   GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
}

static void activate(GApplication *app, gpointer user_data)
{
	g_autoptr(PanelClient) client = NULL;
	struct panel_view view = {
	    .mode = arg.compact ? PANEL_MODE_COMPACT
		    : arg.kiosk ? PANEL_MODE_KIOSK
				: PANEL_MODE_WINDOW,
	    .read_only = arg.read_only,
	    .lamp_size = arg.lamp_size,
	    .columns = arg.columns,
	};
	PanelWindow *window;

	client =
	    panel_client_new(arg.session ? G_BUS_TYPE_SESSION : G_BUS_TYPE_SYSTEM, arg.address);
	window =
	    panel_window_new(GTK_APPLICATION(app), client, &view, arg.filter, arg.debug_geometry);
	panel_client_start(client);
	gtk_window_present(GTK_WINDOW(window));
}

/* SIGTERM (systemd stopping a kiosk, a test) and SIGINT end the panel as closing it does. */
static gboolean quit_on_signal(gpointer user_data)
{
	g_application_quit(G_APPLICATION(user_data));
	return G_SOURCE_CONTINUE;
}

int main(int argc, char **argv)
{
	g_autoptr(GtkApplication) app = NULL;

	/* Not unique: a panel per bus (and per test) is fine, and no session bus is needed. */
	app = gtk_application_new("io.uledsd.Panel", G_APPLICATION_NON_UNIQUE);
	g_application_add_main_option_entries(G_APPLICATION(app), options);
	g_application_set_option_context_summary(
	    G_APPLICATION(app), "Shows the LEDs of uledsd as lamps, and lets you switch them.");
	g_signal_connect(app, "handle-local-options", G_CALLBACK(handle_local_options), NULL);
	g_signal_connect(app, "startup", G_CALLBACK(startup), NULL);
	g_signal_connect(app, "activate", G_CALLBACK(activate), NULL);
	g_unix_signal_add(SIGTERM, quit_on_signal, app);
	g_unix_signal_add(SIGINT, quit_on_signal, app);
	return g_application_run(G_APPLICATION(app), argc, argv);
}

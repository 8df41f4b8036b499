// SPDX-License-Identifier: MIT
/* How uledsctl looks: colours only on a terminal, aligned tables, the pager, LED lamps. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl.h"

const char *ctl_ansi(const struct ctl *c, const char *seq)
{
	return c->color ? seq : "";
}

/* The kernel's LED colour names (include/dt-bindings/leds/common.h, led_colors[] in
 * drivers/leds/led-core.c) and what a terminal can show for them. */
static const struct {
	const char *name;
	uint8_t rgb[3];
} led_colors[] = {
    {"white", {240, 240, 240}}, {"red", {255, 40, 40}},	    {"green", {40, 220, 60}},
    {"blue", {60, 110, 255}},	{"amber", {255, 176, 0}},   {"violet", {160, 80, 255}},
    {"yellow", {255, 230, 40}}, {"ir", {150, 30, 30}},	    {"multicolor", {240, 240, 240}},
    {"rgb", {240, 240, 240}},	{"purple", {170, 60, 200}}, {"orange", {255, 140, 20}},
    {"pink", {255, 120, 180}},	{"cyan", {40, 220, 230}},   {"lime", {170, 255, 40}},
};

static bool color_of_part(const char *part, size_t len, uint8_t rgb[3])
{
	for (size_t i = 0; i < ELEMENTSOF(led_colors); i++)
		if (strlen(led_colors[i].name) == len &&
		    strncmp(part, led_colors[i].name, len) == 0) {
			memcpy(rgb, led_colors[i].rgb, 3);
			return true;
		}
	return false;
}

/* devicename:color:function names the colour in the middle; names that do not follow the
 * convention get the first part that is a colour name, else a neutral white. */
void ctl_led_rgb(const char *name, uint8_t rgb[3])
{
	const char *a = strchr(name, ':'), *p;

	if (a) {
		const char *b = strchr(a + 1, ':');

		if (b && color_of_part(a + 1, (size_t)(b - a - 1), rgb))
			return;
	}
	for (p = name;; p++) {
		const char *end = strchrnul(p, ':');

		if (color_of_part(p, (size_t)(end - p), rgb))
			return;
		if (!*end)
			break;
		p = end;
	}
	memcpy(rgb, led_colors[0].rgb, 3);
}

/* A multicolour LED's colour: its channels' colours weighted by their intensities, scaled
 * so the brightest component is at most 255. False when every intensity is 0. */
static bool mixed_rgb(const struct ctl_led *l, uint8_t rgb[3])
{
	double sum[3] = {0}, peak = 0;

	if (!l->max_brightness)
		return false;
	for (size_t i = 0; i < l->n_channels; i++) {
		const char *name = l->channels[i].name;
		double w = (double)l->channels[i].intensity / l->max_brightness;
		uint8_t c[3];

		if (!color_of_part(name, strlen(name), c))
			memcpy(c, led_colors[0].rgb, 3);
		for (int k = 0; k < 3; k++) {
			sum[k] += c[k] * w;
			peak = sum[k] > peak ? sum[k] : peak;
		}
	}
	if (peak <= 0)
		return false;
	for (int k = 0; k < 3; k++) {
		double v = sum[k] * (peak > 255 ? 255 / peak : 1) + 0.5;

		rgb[k] = (uint8_t)(v > 255 ? 255 : v);
	}
	return true;
}

/* "red 255, green 128, blue 0" (between " ", sep ", "): the channels of a multicolour LED,
 * NULL for a plain one. */
char *ctl_color_text(const struct ctl_led *l, const char *between, const char *sep)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f;

	if (!l->n_channels || !(f = open_memstream(&s, &len)))
		return NULL;
	for (size_t i = 0; i < l->n_channels; i++)
		fprintf(f, "%s%s%s%u", i ? sep : "", l->channels[i].name, between,
			l->channels[i].intensity);
	fclose(f);
	return s;
}

/* A lamp's glyph tells its level even without colour. */
const char *ctl_lamp_glyph(const struct ctl_led *l)
{
	return l->brightness == 0 ? "○" : l->brightness < l->max_brightness ? "◐" : "●";
}

/* A lamp's colour: the LED's (a multicolour LED's mix of its channels), dimmed by brightness
 * (30% at the lowest step, so a dim LED is still told apart from an off one, which is grey).
 * Empty without colours. */
void ctl_lamp_color(const struct ctl *c, const struct ctl_led *l, char buf[static 32])
{
	uint8_t rgb[3];
	double k;

	*buf = '\0';
	if (!c->color)
		return;
	if (l->brightness == 0 || !l->max_brightness || (l->n_channels && !mixed_rgb(l, rgb))) {
		snprintf(buf, 32, ANSI_DIM);
		return;
	}
	if (!l->n_channels)
		ctl_led_rgb(l->name, rgb);
	k = 0.3 + 0.7 * (double)l->brightness / l->max_brightness;
	snprintf(buf, 32, "\033[38;2;%d;%d;%dm", (int)(rgb[0] * k), (int)(rgb[1] * k),
		 (int)(rgb[2] * k));
}

void ctl_lamp(const struct ctl *c, FILE *f, const struct ctl_led *l)
{
	char color[32];

	ctl_lamp_color(c, l, color);
	fprintf(f, "%s%s%s", color, ctl_lamp_glyph(l), ctl_ansi(c, ANSI_RESET));
}

/* Terminal columns a UTF-8 string takes: one per code point is right for names and glyphs. */
size_t ctl_text_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

/* ---- pager, as systemctl: $SYSTEMD_PAGER, $PAGER, less -FRSXMK; only on a terminal ---- */

static pid_t pager_pid;

void ctl_pager_open(struct ctl *c)
{
	const char *pager = getenv("SYSTEMD_PAGER");
	int fd[2];

	if (c->no_pager || !c->tty)
		return;
	if (!pager)
		pager = getenv("PAGER");
	if (pager && (!*pager || streq(pager, "cat")))
		return;
	if (pipe2(fd, O_CLOEXEC) < 0)
		return;
	fflush(stdout);
	pager_pid = fork();
	if (pager_pid < 0) {
		pager_pid = 0;
		close(fd[0]);
		close(fd[1]);
		return;
	}
	if (pager_pid == 0) {
		char buf[4096];
		ssize_t n;

		dup2(fd[0], STDIN_FILENO);
		setenv("LESS", "FRSXMK", 0);
		if (pager)
			execlp("sh", "sh", "-c", pager, (char *)NULL);
		execlp("less", "less", (char *)NULL);
		execlp("more", "more", (char *)NULL);
		/* No pager at all: pass the text through rather than lose it. */
		while ((n = read(STDIN_FILENO, buf, sizeof(buf))) > 0)
			if (write(STDOUT_FILENO, buf, (size_t)n) < 0)
				break;
		_exit(0);
	}
	dup2(fd[1], STDOUT_FILENO);
	close(fd[0]);
	close(fd[1]);
	/* A reader who quits the pager early is not an error. */
	signal(SIGPIPE, SIG_IGN);
}

void ctl_pager_close(void)
{
	if (!pager_pid)
		return;
	fflush(stdout);
	close(STDOUT_FILENO);
	while (waitpid(pager_pid, NULL, 0) < 0 && errno == EINTR)
		;
	pager_pid = 0;
}

/* ---- tables: aligned columns, a header only on a terminal ------------------------------- */

struct table {
	size_t n_columns, n_rows; /* row 0 is the header */
	char **cells;
	char **colors; /* an escape sequence per cell (or NULL), owned: lamps have computed ones */
	bool *right;
};

struct table *table_new(size_t n_columns, const char *const *headers)
{
	struct table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->n_columns = n_columns;
	t->right = calloc(n_columns, sizeof(bool));
	if (!t->right || table_add(t, headers, NULL) < 0)
		return table_free(t);
	return t;
}

void table_set_right(struct table *t, size_t column)
{
	t->right[column] = true;
}

int table_add(struct table *t, const char *const *cells, const char *const *colors)
{
	size_t base = t->n_rows * t->n_columns;
	char **c, **k;

	c = realloc(t->cells, (base + t->n_columns) * sizeof(*c));
	if (!c)
		return -ENOMEM;
	t->cells = c;
	k = realloc(t->colors, (base + t->n_columns) * sizeof(*k));
	if (!k)
		return -ENOMEM;
	t->colors = k;
	for (size_t i = 0; i < t->n_columns; i++) {
		t->cells[base + i] = strdup(cells[i] ? cells[i] : "");
		t->colors[base + i] = colors && colors[i] ? strdup(colors[i]) : NULL;
		if (!t->cells[base + i] || (colors && colors[i] && !t->colors[base + i])) {
			for (size_t j = 0; j <= i; j++) {
				free(t->cells[base + j]);
				free(t->colors[base + j]);
			}
			return -ENOMEM;
		}
	}
	t->n_rows++;
	return 0;
}

void table_print(const struct ctl *c, struct table *t, FILE *f)
{
	size_t width[16] = {0};

	size_t first = c->tty && !c->no_legend ? 0 : 1; /* the header: a terminal's */

	for (size_t r = first; r < t->n_rows; r++)
		for (size_t i = 0; i < t->n_columns && i < ELEMENTSOF(width); i++) {
			size_t w = ctl_text_width(t->cells[r * t->n_columns + i]);

			if (w > width[i])
				width[i] = w;
		}
	for (size_t r = first; r < t->n_rows; r++) {
		for (size_t i = 0; i < t->n_columns; i++) {
			const char *s = t->cells[r * t->n_columns + i];
			const char *color = r == 0 ? ANSI_BOLD : t->colors[r * t->n_columns + i];
			size_t pad = width[i] - ctl_text_width(s);
			bool last = i + 1 == t->n_columns;

			if (i > 0)
				fputs("  ", f);
			if (t->right[i])
				fprintf(f, "%*s", (int)pad, "");
			if (color && c->color)
				fprintf(f, "%s%s" ANSI_RESET, color, s);
			else
				fputs(s, f);
			if (!t->right[i] && !last)
				fprintf(f, "%*s", (int)pad, "");
		}
		fputc('\n', f);
	}
}

struct table *table_free(struct table *t)
{
	if (!t)
		return NULL;
	for (size_t i = 0; i < t->n_rows * t->n_columns; i++) {
		free(t->cells[i]);
		free(t->colors[i]);
	}
	free(t->cells);
	free(t->colors);
	free(t->right);
	free(t);
	return NULL;
}

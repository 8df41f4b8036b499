// SPDX-License-Identifier: MIT
/* uledsd-panel's name → colour mapping: every kernel colour name, the name forms drivers use,
 * and the neutral fallback. No display needed. */
#include "led-color.h"
#include "test.h"

#define COLOR(name, expected)                                                                      \
	CHECK_STR(led_color_to_string(led_color_from_name(name)), expected, "colour of " name)

/* Every name of the kernel's led_colors[], as devicename:color:function. */
static void every_kernel_colour_name(void)
{
	static const char *const kernel[] = {"white",  "red",	 "green", "blue",	"amber",
					     "violet", "yellow", "ir",	  "multicolor", "rgb",
					     "purple", "orange", "pink",  "cyan",	"lime"};
	for (size_t i = 0; i < sizeof(kernel) / sizeof(kernel[0]); i++) {
		char name[64];

		snprintf(name, sizeof(name), "board:%s:status", kernel[i]);
		CHECK_STR(led_color_to_string(led_color_from_name(name)), kernel[i], name);
		CHECK_INT(led_color_from_string(kernel[i], strlen(kernel[i])), (int)i,
			  "enum order follows led_colors[]");
	}
}

/* The forms seen in /sys/class/leds. */
static void the_name_forms_of_sysfs(void)
{
	COLOR("pi:green:act", "green");
	COLOR("input3::capslock", "unknown"); /* no colour given */
	COLOR("tpacpi::power", "unknown");
	COLOR("green:heartbeat", "green"); /* color:function, older drivers */
	COLOR("phy0:amber", "amber");	   /* devicename:color */
	COLOR("mmc0::", "unknown");
	COLOR("led:red:disk:0", "red");		 /* colons in the function */
	COLOR("board:Red:power", "red");	 /* any case */
	COLOR("board:reddish:power", "unknown"); /* a prefix is not a colour */
	COLOR("board:re:power", "unknown");
	COLOR("board:infrared:rx", "unknown"); /* the kernel name is "ir" */
	COLOR("blue", "blue");		       /* a bare colour */
	COLOR("heartbeat", "unknown");
	COLOR("", "unknown");
	COLOR(":::", "unknown");
}

/* Unknown colours map to the neutral lamp colour, which is none of the real ones. */
static void unknown_is_a_neutral_lamp(void)
{
	struct led_rgb n = led_color_rgb(LED_COLOR_UNKNOWN), red = led_color_rgb(LED_COLOR_RED);
	CHECK(n.r > 0.5 && n.g > 0.5 && n.b > 0.5 && n.r - n.b < 0.1 && n.b - n.r < 0.1,
	      "unknown is a neutral grey-white, got %.2f %.2f %.2f", n.r, n.g, n.b);
	CHECK(red.r > 0.9 && red.g < 0.3 && red.b < 0.3, "red is red, got %.2f %.2f %.2f", red.r,
	      red.g, red.b);
	CHECK_STR(led_color_to_string(_LED_COLOR_MAX), "unknown", "out of range");
}

/* The function part shown under compact lamps. */
static void the_function_part(void)
{
	CHECK_STR(led_name_function("board:green:heartbeat"), "heartbeat", "function part");
	CHECK_STR(led_name_function("plain"), "plain", "no colon: whole name");
	CHECK_STR(led_name_function("mmc0::"), "mmc0::", "empty function: whole name");
}

/* A multicolour LED's light: channels weighted by intensity and added. */
static void multicolour_light_mixes_channels(void)
{
	{
		enum led_color rgb[] = {LED_COLOR_RED, LED_COLOR_GREEN, LED_COLOR_BLUE};
		unsigned full_red[] = {255, 0, 0}, half_red[] = {128, 0, 0}, white[] = {255, 255, 255};
		unsigned dark[] = {0, 0, 0};
		unsigned magenta[] = {255, 0, 255};
		enum led_color amber[] = {LED_COLOR_AMBER};
		unsigned full[] = {255};
		struct led_rgb a = led_color_rgb(LED_COLOR_AMBER), m;

		m = led_color_mix(rgb, full_red, 3, 255);
		CHECK(m.r == 1 && m.g == 0 && m.b == 0, "full red is pure red");
		m = led_color_mix(rgb, magenta, 3, 255);
		CHECK(m.r == 1 && m.g == 0 && m.b == 1, "red + blue is magenta, not a washed-out pink");
		m = led_color_mix(amber, full, 1, 255);
		CHECK(m.r == a.r && m.g == a.g && m.b == a.b, "another colour is its lamp colour");
		m = led_color_mix(rgb, half_red, 3, 255);
		CHECK(m.r > 0.49 && m.r < 0.51 && m.g < 0.09, "half red is half as bright (%.2f)",
		      m.r);
		m = led_color_mix(rgb, white, 3, 255);
		CHECK(m.r == 1 && m.g == 1 && m.b == 1, "all channels add up to white (clamped)");
		m = led_color_mix(rgb, dark, 3, 255);
		CHECK(m.r == 0 && m.g == 0 && m.b == 0, "no channel lit: black");
		m = led_color_mix(rgb, white, 3, 0);
		CHECK(m.r == 0 && m.g == 0 && m.b == 0, "max 0 divides by nothing");
	}
}

int main(void)
{
	TEST_CASE(every_kernel_colour_name);
	TEST_CASE(the_name_forms_of_sysfs);
	TEST_CASE(unknown_is_a_neutral_lamp);
	TEST_CASE(the_function_part);
	TEST_CASE(multicolour_light_mixes_channels);
	return test_finish("test-panel-color");
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The latency floor of uledsd's benchmark: the kernel's own leds-gpio driving one
 * gpio-sim line, no user space involved.
 *
 * Registers a "leds-gpio" platform device with one LED whose GPIO is found through a
 * gpiod lookup table keyed by the label of a GPIO chip (the gpio-sim bank's label).
 * leds-gpio must be loaded (modprobe leds-gpio) for the device to bind.
 */
#include <linux/gpio/machine.h>
#include <linux/leds.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/slab.h>

static char *chip = "benchfloor";
module_param(chip, charp, 0444);
MODULE_PARM_DESC(chip, "label of the GPIO chip carrying the line");

static unsigned int line;
module_param(line, uint, 0444);
MODULE_PARM_DESC(line, "offset of the line on that chip");

static char *name = "bench:floor";
module_param(name, charp, 0444);
MODULE_PARM_DESC(name, "name of the LED in /sys/class/leds");

static struct gpiod_lookup_table *floor_lookup;
static struct platform_device *floor_pdev;

static int __init ledsgpio_floor_init(void)
{
	struct gpio_led led = {
		.name = name,
		.default_state = LEDS_GPIO_DEFSTATE_OFF,
		.gpio = -ENOENT,	/* no legacy number: the lookup table provides it */
	};
	struct gpio_led_platform_data pdata = {
		.num_leds = 1,
		.leds = &led,
	};
	struct platform_device_info info = {
		.name = "leds-gpio",
		.id = PLATFORM_DEVID_NONE,
		.data = &pdata,
		.size_data = sizeof(pdata),
	};

	/* One entry and the terminating empty one. */
	floor_lookup = kzalloc(struct_size(floor_lookup, table, 2), GFP_KERNEL);
	if (!floor_lookup)
		return -ENOMEM;
	floor_lookup->dev_id = "leds-gpio";
	floor_lookup->table[0] = GPIO_LOOKUP_IDX(chip, line, NULL, 0, GPIO_ACTIVE_HIGH);
	gpiod_add_lookup_table(floor_lookup);

	/* The platform data (and the LED in it) is copied by the driver core. */
	floor_pdev = platform_device_register_full(&info);
	if (IS_ERR(floor_pdev)) {
		gpiod_remove_lookup_table(floor_lookup);
		kfree(floor_lookup);
		return PTR_ERR(floor_pdev);
	}
	return 0;
}

static void __exit ledsgpio_floor_exit(void)
{
	platform_device_unregister(floor_pdev);
	gpiod_remove_lookup_table(floor_lookup);
	kfree(floor_lookup);
}

module_init(ledsgpio_floor_init);
module_exit(ledsgpio_floor_exit);
MODULE_DESCRIPTION("leds-gpio on a labelled GPIO chip: the benchmark's latency floor");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0
/*
 * pwm-test: a PWM chip for uledsd's kernel tests, with no hardware behind it.
 *
 * pwm-gpio cannot run on gpio-sim (its lines may sleep; pwm-gpio toggles them from an
 * hrtimer and refuses such lines), so this chip keeps what apply() is given and get_state()
 * reports it back: /sys/class/pwm/pwmchipN/pwmM/{period,duty_cycle,polarity,enable} show
 * exactly what a user wrote, and /sys/kernel/debug/pwm the same.
 *
 * The chip is the platform device "uledsd-test-pwm" with 8 channels. The knob to remove and
 * add it again is the driver core's own: write the device name to
 * /sys/bus/platform/drivers/uledsd-test-pwm/unbind (the chip goes, with every export) and
 * then to .../bind (a new chip, maybe with another pwmchipN).
 *
 * It builds for 6.9+ (devm_pwmchip_alloc, the chip allocated by the core) and for 6.1 (the
 * chip embedded in the private struct; 6.1's PWM core refuses a period of 0 and a duty cycle
 * above the period before it calls apply(), which is what the pwm backend's write order is
 * tested against). 6.1's get_state() returning int is 6.2's, which 6.1 stable (Debian's
 * bookworm kernel) has too.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/pwm.h>
#include <linux/version.h>

#define TEST_PWM_CHANNELS 8

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
#define TEST_PWM_CHIP_ALLOC 1
#endif

struct test_pwm {
#ifndef TEST_PWM_CHIP_ALLOC
	struct pwm_chip chip;
#endif
	struct pwm_state state[TEST_PWM_CHANNELS];
};

static struct test_pwm *to_test_pwm(struct pwm_chip *chip)
{
#ifdef TEST_PWM_CHIP_ALLOC
	return pwmchip_get_drvdata(chip);
#else
	return container_of(chip, struct test_pwm, chip);
#endif
}

static int test_pwm_apply(struct pwm_chip *chip, struct pwm_device *pwm,
			  const struct pwm_state *state)
{
	struct test_pwm *p = to_test_pwm(chip);

	p->state[pwm->hwpwm] = *state;
	return 0;
}

static int test_pwm_get_state(struct pwm_chip *chip, struct pwm_device *pwm,
			      struct pwm_state *state)
{
	struct test_pwm *p = to_test_pwm(chip);

	*state = p->state[pwm->hwpwm];
	return 0;
}

static const struct pwm_ops test_pwm_ops = {
	.apply = test_pwm_apply,
	.get_state = test_pwm_get_state,
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 7, 0)
	.owner = THIS_MODULE, /* 6.7 sets the chip's owner in pwmchip_add() */
#endif
};

/* The chip with room for struct test_pwm: allocated by the core (6.9+) or embedded in it. */
static struct pwm_chip *test_pwm_chip_new(struct device *dev)
{
#ifdef TEST_PWM_CHIP_ALLOC
	return devm_pwmchip_alloc(dev, TEST_PWM_CHANNELS, sizeof(struct test_pwm));
#else
	struct test_pwm *p = devm_kzalloc(dev, sizeof(*p), GFP_KERNEL);

	if (!p)
		return ERR_PTR(-ENOMEM);
	p->chip.dev = dev;
	p->chip.npwm = TEST_PWM_CHANNELS;
	return &p->chip;
#endif
}

static int test_pwm_probe(struct platform_device *pdev)
{
	struct pwm_chip *chip = test_pwm_chip_new(&pdev->dev);

	if (IS_ERR(chip))
		return PTR_ERR(chip);
	chip->ops = &test_pwm_ops;
	return devm_pwmchip_add(&pdev->dev, chip);
}

static struct platform_driver test_pwm_driver = {
	.driver = { .name = "uledsd-test-pwm" },
	.probe = test_pwm_probe,
};

static struct platform_device *test_pwm_device;

static int __init test_pwm_init(void)
{
	int r = platform_driver_register(&test_pwm_driver);

	if (r)
		return r;
	test_pwm_device = platform_device_register_simple("uledsd-test-pwm", 0, NULL, 0);
	if (IS_ERR(test_pwm_device)) {
		platform_driver_unregister(&test_pwm_driver);
		return PTR_ERR(test_pwm_device);
	}
	return 0;
}

static void __exit test_pwm_exit(void)
{
	platform_device_unregister(test_pwm_device);
	platform_driver_unregister(&test_pwm_driver);
}

module_init(test_pwm_init);
module_exit(test_pwm_exit);
MODULE_DESCRIPTION("PWM chip without hardware for uledsd's tests");
MODULE_LICENSE("GPL");

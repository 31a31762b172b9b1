/* Congestion Impact: directions and the rounding rule of the text table. */
#include "check.h"
#include "infra/impact.h"

int main(void)
{
    /* Latency: congested / isolated. Bandwidth: isolated / congested. */
    CHECK_NEAR(impact_ratio(2.0, 5.0, 0), 2.5, 1e-15);
    CHECK_NEAR(impact_ratio(1000.0, 250.0, 1), 4.0, 1e-15);
    /* Published: Crystal 696 nodes 32 PPort, 99% latency 25.1 -> 9146.6. */
    CHECK_NEAR(impact_ratio_printed(25.1, 9146.6, 0), 364.406, 1e-5);

    /* The text table divides the values as printed (one decimal), as the
     * reference does; the JSON keeps the unrounded ratio. */
    CHECK(round_as_printed(2.349) == 2.3);
    CHECK(round_as_printed(4.66) == 4.7);
    CHECK_NEAR(impact_ratio_printed(2.349, 4.66, 0), 4.7 / 2.3, 1e-15);
    CHECK_NEAR(impact_ratio(2.349, 4.66, 0), 4.66 / 2.349, 1e-15);
    CHECK(impact_ratio_printed(2.349, 4.66, 0) != impact_ratio(2.349, 4.66, 0));
    /* A value printed as 0.0 gives an infinite printed CI, not a crash. */
    CHECK(isinf(impact_ratio_printed(0.04, 3.0, 0)));
    return check_report("test_impact");
}

#include "infra/impact.h"

#include <stdio.h>
#include <stdlib.h>

double impact_ratio(double isolated, double loaded, int higher_is_better)
{
    return higher_is_better ? isolated / loaded : loaded / isolated;
}

double round_as_printed(double v)
{
    char buf[64];
    snprintf(buf, sizeof(buf), "%12.1f", v);
    return strtod(buf, NULL);
}

double impact_ratio_printed(double isolated, double loaded, int higher_is_better)
{
    return impact_ratio(round_as_printed(isolated), round_as_printed(loaded), higher_is_better);
}

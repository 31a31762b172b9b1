/* Congestion Impact arithmetic (docs/method.md#congestion-impact). Pure C. */
#ifndef GPCNET_IMPACT_H
#define GPCNET_IMPACT_H

/* Unrounded CI: loaded/isolated for lower-is-better metrics (latency),
 * isolated/loaded for higher-is-better (bandwidth). */
double impact_ratio(double isolated, double loaded, int higher_is_better);

/* CI as the reference prints it: both values first rounded the way the
 * table prints them ("%12.1f"), then divided. Kept for parity with scripts
 * that compare our Key Results with published ones. */
double impact_ratio_printed(double isolated, double loaded, int higher_is_better);

/* The value as the table shows it, e.g. 2.349 -> 2.3. */
double round_as_printed(double v);

#endif

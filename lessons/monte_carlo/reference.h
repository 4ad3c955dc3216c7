// Monte Carlo: the exact answers the estimates are judged against, shared by
// the lesson's program (driver.cu) and its graded tests (grade.cu).
#pragma once

#include <cmath>

#include "lesson.h"

constexpr double kPi = 3.14159265358979323846;

// An estimate from N samples is off by about one standard error and almost
// never by this many: within it, an estimate is right.
constexpr double kTolerance = 5.0;  // standard errors

// The standard error of pi ~ 4 hits / n: each point is inside the quarter
// circle with probability pi / 4.
inline double pi_standard_error(double n) {
  const double q = kPi / 4;
  return 4 * std::sqrt(q * (1 - q) / n);
}

// The call of the lesson's program and of most graded tests: a stock at 100,
// a strike of 100, a rate of 5 % and a volatility of 20 % a year, one year.
constexpr Option kOption{
    .spot = 100.0f, .strike = 100.0f, .rate = 0.05f, .volatility = 0.2f, .years = 1.0f};

inline double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// The price of a European call (Black-Scholes), and the mean and second
// moment of its payoff at expiry.
struct CallExact {
  double price, mean, second_moment;
};
inline CallExact call_exact(const Option& o) {
  const double s = o.spot, k = o.strike, r = o.rate, v = o.volatility, y = o.years;
  const double d1 = (std::log(s / k) + (r + 0.5 * v * v) * y) / (v * std::sqrt(y));
  const double d2 = d1 - v * std::sqrt(y);
  CallExact e;
  e.price = s * normal_cdf(d1) - k * std::exp(-r * y) * normal_cdf(d2);
  e.mean = e.price * std::exp(r * y);
  e.second_moment = s * s * std::exp((2 * r + v * v) * y) * normal_cdf(d1 + v * std::sqrt(y)) -
                    2 * k * s * std::exp(r * y) * normal_cdf(d1) + k * k * normal_cdf(d2);
  return e;
}

// What a payoff at expiry is worth today: exp(-rate years).
inline double discount_factor(const Option& o) { return std::exp(-double(o.rate) * o.years); }

// The advisor's figures of one call site (ADACOMP_ADVISE,
// docs/report.md "Advice"), from its samples (report/samples.h): each
// candidate codec's ratio and speed, the best lossless and lossy codec and
// the time each would save on the link, and whether the site can be lossy.
#pragma once

#include <cmath>
#include <string>

#include "report/report.h"
#include "report/sites.h"

namespace adacomp {

struct CodecFigure {
  int codec = -1;        // report/samples.h candidate index; -1: none applies
  double ratio = 0;      // sample bytes / coded bytes
  double MBps = 0;       // encoding speed (MB = 1e6 bytes)
  double saved_s = NAN;  // over the site's bytes, on the link (NaN: no link figure)
};

struct SiteAdviceFigures {
  bool lossy_possible = false;
  const char* why_exact = "";  // why not, where not
  CodecFigure lossless, lossy;
};

SiteAdviceFigures site_advice(const SiteRow& site, const LinkFigures& link);
// The site's "advice" JSON object ("" for a site with no sample).
std::string advice_json(const SiteRow& site, const LinkFigures& link);
// The site's advice as one line of the table ("" for a site with no sample).
std::string advice_line(const SiteRow& site, const LinkFigures& link);

}  // namespace adacomp

// SPDX-License-Identifier: Apache-2.0
// Added to the MathJax configuration Doxygen writes into every page (MATHJAX_CODEFILE in
// book/Doxyfile.in): no "Loading ..." box in the corner of the page while MathJax works.
MathJax.Hub.Config({ messageStyle: "none" });

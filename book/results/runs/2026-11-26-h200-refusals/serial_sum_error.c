// SPDX-License-Identifier: Apache-2.0
// Relative error of 1/RMS when one thread adds a row's squares in order in fp32 (chapter 01's
// kernel), against the same sum in double, for normal(0, 1) rows (Box-Muller from rand(),
// seed 1). Build: gcc -O2 serial_sum_error.c -lm.
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
int main(){ long ns[]={1<<14,1<<16,1<<18,1<<19,1<<20,1<<21,1<<22,1<<23,9437184};
 for(int t=0;t<9;t++){ long n=ns[t]; srand(1); float s=0; double d=0;
  for(long i=0;i<n;i++){ double u1=(rand()+1.0)/(RAND_MAX+2.0),u2=(rand()+1.0)/(RAND_MAX+2.0); float x=(float)(sqrt(-2*log(u1))*cos(6.283185307179586*u2)); float q=x*x; s+=q; d+=(double)q; }
  double r32=1/sqrt((double)(s/(float)n)+1e-5), r64=1/sqrt(d/n+1e-5); printf("%ld %.3g\n", n, fabs(r32-r64)/r64);} }

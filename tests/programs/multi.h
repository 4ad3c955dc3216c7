#pragma once
void launch_fill(int* d, int n, int v);
long host_sum(const int* h, int n);

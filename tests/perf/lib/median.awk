# median.awk - the median every table of tests/perf uses (loaded with -f
# before the program that calls it).  POSIX awk.

# median(arr, c, k, n) - median of arr[c, k, 1..n] (sorted copy)
function median(arr, c, k, n,    i, j, v, tmp) {
	for (i = 1; i <= n; i++) {
		v = arr[c, k, i] + 0
		for (j = i - 1; j >= 1 && tmp[j] > v; j--)
			tmp[j + 1] = tmp[j]
		tmp[j + 1] = v
	}
	if (n % 2)
		return tmp[(n + 1) / 2]
	return (tmp[n / 2] + tmp[n / 2 + 1]) / 2
}

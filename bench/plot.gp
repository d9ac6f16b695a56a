# SPDX-License-Identifier: Apache-2.0
# One SVG per group from run_bench's data (STEM-GROUP.dat), two panels:
# 1 thread and the most threads.  Called by bench/run.sh as
#   gnuplot -e "stem='build/bench/results'" bench/plot.gp
set terminal svg size 1100,700 dynamic font "sans,11"
set datafile missing "nan"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set key top left
set xtics rotate by -30 noenhanced
set bmargin 5
set key noenhanced

set output stem."-forkjoin.svg"
set multiplot layout 2,1 title "fork-join: speedup over the sequential kernel (higher is better)"
set ylabel "T_seq / T"
set title "1 thread"
plot for [c=2:*] stem."-forkjoin.dat" index 0 using c:xtic(1) title columnheader(c)
set title "most threads"
plot for [c=2:*] stem."-forkjoin.dat" index 1 using c:xtic(1) title columnheader(c)
unset multiplot

set output stem."-graph.svg"
set multiplot layout 2,1 title "flow graph: messages per second (higher is better)"
set ylabel "messages / s"
set logscale y
set title "1 thread"
plot for [c=2:*] stem."-graph.dat" index 0 using c:xtic(1) title columnheader(c)
set title "most threads"
plot for [c=2:*] stem."-graph.dat" index 1 using c:xtic(1) title columnheader(c)
unset multiplot

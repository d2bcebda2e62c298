set terminal pngcairo size 1000,560 font ',10'
set output '/work/main/benchmarks/migration/results/2026-11-27/compare-full/compare.png'
set grid
set key below
set datafile separator ','
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key autotitle columnhead
set title 'Heliotrope vs plain QEMU (downtime) and drive-mirror (storage): medians'
set xtics rotate by 30 right
set logscale y
set yrange [1:*]
plot '/work/main/benchmarks/migration/results/2026-11-27/compare-full/compare-plot.csv' using 2:xtic(1), '' using 3

set terminal pngcairo size 1000,560 font ',10'
set output '/work/main/benchmarks/migration/results/2026-11-27/compare-final/heliotrope/heliotrope.png'
set grid
set key below
set title 'Heliotrope live migration of the records guest'
set datafile separator ','
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key autotitle columnhead
set xlabel 'migration (odd: virginia -> taiwan, even: back)'
set ylabel 'ms'
set yrange [0:*]
plot '/work/main/benchmarks/migration/results/2026-11-27/compare-final/heliotrope/heliotrope.csv' using 7:xtic(1) title 'handoff', '/work/main/benchmarks/migration/results/2026-11-27/compare-final/heliotrope/heliotrope.csv' using 6:xtic(1) title 'guest downtime'

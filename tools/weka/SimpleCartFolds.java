// SimpleCartFolds.java -- Weka's SimpleCart scored on given outer folds, for
// benchmarks/cart_accuracy.py (which stores the result, so the benchmark needs
// no Java).  Java 11+ runs the source file directly:
//
//   java -cp /usr/share/java/weka.jar tools/weka/SimpleCartFolds.java \
//        DATA.arff FOLDS.txt SEED_BASE OUT.json [SimpleCart options, e.g. -A]
//
// FOLDS.txt: one line per outer repetition r, one fold id (0..K-1) per data row
// in file order, separated by commas.  For fold k of repetition r the training
// rows (fold != k, in file order) train weka.classifiers.trees.SimpleCart with
// the given options plus -S (SEED_BASE + 10 r + k), and the rows of fold k are
// predicted (classifyInstance: the most probable class, ties to the first
// declared value).  The class is the last attribute.  OUT.json holds, per
// repetition, every row's predicted label and every fold tree's leaf count.

import java.io.BufferedReader;
import java.io.FileReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import weka.classifiers.trees.SimpleCart;
import weka.core.Instances;
import weka.core.converters.ConverterUtils.DataSource;

public class SimpleCartFolds {

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: SimpleCartFolds DATA.arff FOLDS.txt SEED_BASE OUT.json [options]");
            System.exit(2);
        }
        Instances data = DataSource.read(args[0]);
        data.setClassIndex(data.numAttributes() - 1);
        List<int[]> repeats = readFolds(args[1], data.numInstances());
        int seedBase = Integer.parseInt(args[2]);
        List<String> options = new ArrayList<>();
        for (int i = 4; i < args.length; i++) options.add(args[i]);

        StringBuilder json = new StringBuilder();
        json.append("{\"options\": ").append(quote(String.join(" ", options)));
        json.append(", \"seed_base\": ").append(seedBase).append(", \"repeats\": [");
        for (int r = 0; r < repeats.size(); r++) {
            int[] fold = repeats.get(r);
            int k = 0;
            for (int f : fold) k = Math.max(k, f + 1);
            String[] predicted = new String[data.numInstances()];
            int[] leaves = new int[k];
            for (int f = 0; f < k; f++) {
                Instances train = new Instances(data, 0);
                for (int i = 0; i < data.numInstances(); i++)
                    if (fold[i] != f) train.add(data.instance(i));
                SimpleCart cart = new SimpleCart();
                List<String> opts = new ArrayList<>(options);
                opts.add("-S");
                opts.add(Integer.toString(seedBase + 10 * r + f));
                cart.setOptions(opts.toArray(new String[0]));
                cart.buildClassifier(train);
                leaves[f] = cart.numLeaves();
                for (int i = 0; i < data.numInstances(); i++)
                    if (fold[i] == f)
                        predicted[i] = data.classAttribute().value(
                            (int) cart.classifyInstance(data.instance(i)));
            }
            json.append(r == 0 ? "" : ", ").append("{\"predictions\": [");
            for (int i = 0; i < predicted.length; i++)
                json.append(i == 0 ? "" : ", ").append(quote(predicted[i]));
            json.append("], \"leaves\": [");
            for (int f = 0; f < k; f++) json.append(f == 0 ? "" : ", ").append(leaves[f]);
            json.append("]}");
        }
        json.append("]}\n");
        try (PrintWriter out = new PrintWriter(args[3], StandardCharsets.UTF_8)) {
            out.print(json);
        }
    }

    static List<int[]> readFolds(String path, int n) throws Exception {
        List<int[]> out = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new FileReader(path, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isBlank()) continue;
                String[] cells = line.trim().split(",");
                if (cells.length != n)
                    throw new IllegalArgumentException("fold line has " + cells.length + " ids for " + n + " rows");
                int[] fold = new int[n];
                for (int i = 0; i < n; i++) fold[i] = Integer.parseInt(cells[i].trim());
                out.add(fold);
            }
        }
        return out;
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }
}

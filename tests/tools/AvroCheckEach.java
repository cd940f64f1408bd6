import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

// Runs shared/interop's AvroCheck (Apache Avro Java reading a container file)
// on every file named on the command line, in one JVM: avro_java.sh starts a
// JVM per file, about 0.6 CPU s each, and the tests check dozens of manifests.
// AvroCheck is found on the class path (avro_java.sh compiles it); the output
// is what avro_java.sh prints for the same files. Exits 1 on the first file
// AvroCheck cannot read, naming it. Run in Java's source-file mode:
//   java -cp JARS:CLASSES tests/tools/AvroCheckEach.java FILE.avro...
public class AvroCheckEach {
  public static void main(String[] args) throws Exception {
    Method check = Class.forName("AvroCheck").getMethod("main", String[].class);
    for (String file : args) {
      try {
        check.invoke(null, (Object) new String[] {file});
      } catch (InvocationTargetException e) {
        System.out.flush();
        System.err.println("AvroCheck: " + file + ": " + e.getCause());
        System.exit(1);
      }
    }
  }
}

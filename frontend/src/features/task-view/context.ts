import { createContext, useContext } from "react";
import { wailsApi, type TaskApi } from "./api";

/** TaskApiContext supplies the Go side; tests and the benchmark provide fakes. */
export const TaskApiContext = createContext<TaskApi>(wailsApi);

export function useTaskApi(): TaskApi {
  return useContext(TaskApiContext);
}
